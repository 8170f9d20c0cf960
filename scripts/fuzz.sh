#!/usr/bin/env bash
# Fuzzing Baton's decoders of untrusted bytes with libFuzzer and AddressSanitizer (leak
# detection on). See docs/TESTING.md, "Fuzzing".
#
#   scripts/fuzz.sh build            build every fuzz target into .build-fuzz
#   scripts/fuzz.sh run [TARGET...]  build, then run each target (all by default) one after another
#   scripts/fuzz.sh seeds            build, then write Fuzz/Corpus/<target>/ again from Baton's encoders
#   scripts/fuzz.sh list             the targets
#
# Environment for `run`: FUZZ_RUNS (executions per target, default 1000000; ActivityPayload, whose
# every input is also read by GLib's reader and compared, runs ten times as many when no
# FUZZ_SECONDS is given, so `make fuzz` gives it 10^7), FUZZ_SECONDS (a time bound per target,
# default none), FUZZ_NICE (default 19), FUZZ_REPORT (a file to which
# one line per target is appended: target, executions, exec/s, seconds, date), FUZZ_NO_BUILD=1
# (run what is built).
#
# The targets are executables without `main` (libFuzzer's is linked in). They are in the
# package only with BATON_FUZZ=1 and are built in release mode (swiftc -O keeps overflow and
# bounds checks) with `-sanitize=fuzzer,address` and `-enable-testing` (for @testable import),
# in the scratch path .build-fuzz, apart from the normal build. A run reads the committed seeds
# in Fuzz/Corpus/<target>/ and keeps what it finds in .build-fuzz/corpus/<target>/; a crash,
# leak or timeout is written to .build-fuzz/artifacts/<target>/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
TARGETS=(Variant ActivityPayload ActivityFile ActivityMetadata RevocationList Roster Certificate ServiceRecord AssociatedDomains PairingMessage DBusMessage)
BUILD_FLAGS=(-c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
export BATON_FUZZ=1

build() {
  mkdir -p .build-fuzz/logs
  for target in "${TARGETS[@]}"; do
    local log=.build-fuzz/logs/build-$target.log
    if ! "$SWIFT" build "${BUILD_FLAGS[@]}" --product "Fuzz$target" >"$log" 2>&1; then
      grep -v "Cannot export local symbol" "$log" >&2
      echo "fuzz: building Fuzz$target failed" >&2
      return 1
    fi
    # The linker's notes about ASan's local symbols are expected; anything else is shown.
    grep -E "(warning|error):" "$log" | grep -v "Cannot export local symbol" >&2 || true
  done
  echo "fuzz: built ${#TARGETS[@]} targets"
}

bin() { echo "$("$SWIFT" build "${BUILD_FLAGS[@]}" --show-bin-path)"; }

# One target, FUZZ_RUNS executions (or FUZZ_SECONDS). Fails on a crash, a leak or a timeout.
run_one() {
  local target=$1 binary=$2
  local work=.build-fuzz/corpus/$target artifacts=.build-fuzz/artifacts/$target log=.build-fuzz/logs/$target.log
  mkdir -p "$work" "$artifacts" .build-fuzz/logs
  local runs=${FUZZ_RUNS:-1000000}
  [ "$target" = ActivityPayload ] && [ -z "${FUZZ_SECONDS:-}" ] && runs=$((runs * 10))
  local args=(-runs="$runs" -timeout=20 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1
              -artifact_prefix="$artifacts/")
  [ -n "${FUZZ_SECONDS:-}" ] && args+=(-max_total_time="$FUZZ_SECONDS")
  echo "fuzz: $target ($runs runs${FUZZ_SECONDS:+ or ${FUZZ_SECONDS} s})"
  local start=$SECONDS status=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0:handle_abort=1 \
  LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0 \
    nice -n "${FUZZ_NICE:-19}" "$binary/Fuzz$target" "${args[@]}" "$work" "Fuzz/Corpus/$target" </dev/null >"$log" 2>&1 || status=$?
  local seconds=$((SECONDS - start))
  local executions rate
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$status" -ne 0 ] || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|==ERROR|SUMMARY: " "$log"; then
    echo "fuzz: $target FAILED (exit $status) after ${executions:-?} executions; log: $log" >&2
    grep -E "ERROR|SUMMARY|Fatal error|artifact|Test unit written" "$log" | head -20 >&2
    return 1
  fi
  echo "fuzz: $target ok: ${executions:-?} executions, ${rate:-?} exec/s, ${seconds} s, no crash, no leak"
  [ -n "${FUZZ_REPORT:-}" ] && echo "$target ${executions:-?} ${rate:-?} $seconds $(date -u +%F)" >>"$FUZZ_REPORT"
  return 0
}

case "${1:-run}" in
  list) printf '%s\n' "${TARGETS[@]}" ;;
  build) build ;;
  seeds)
    build
    dir=$(bin)
    for target in "${TARGETS[@]}"; do
      rm -rf "Fuzz/Corpus/$target"
      # Leak checks are for the runs; the seeds are written once and the process exits.
      ASAN_OPTIONS=detect_leaks=0 BATON_FUZZ_SEEDS="Fuzz/Corpus/$target" "$dir/Fuzz$target" </dev/null
      echo "fuzz: $target: $(ls "Fuzz/Corpus/$target" | wc -l) seeds"
    done ;;
  run)
    shift || true
    [ $# -gt 0 ] && TARGETS=("$@")
    [ -n "${FUZZ_NO_BUILD:-}" ] || build
    dir=$(bin)
    failed=0
    for target in "${TARGETS[@]}"; do run_one "$target" "$dir" || failed=1; done
    exit $failed ;;
  *) echo "usage: scripts/fuzz.sh build | run [TARGET...] | seeds | list" >&2; exit 2 ;;
esac
