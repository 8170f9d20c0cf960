#!/usr/bin/env bash
# The XCTest suite of `make test`, its output shown and kept in .build/suite.log.
#
#   scripts/suite.sh           runs the suite (built already: `swift build --build-tests`)
#   scripts/suite.sh summary   names, from that log, the tests that failed and, if the test
#                              process ended in the middle of one (a crash), that test and why
#
# `make test` prints the summary last when anything failed, so the end of CI's output says
# what failed even when the suite's own lines are far above it.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
log=.build/suite.log
case "${1:-run}" in
run)
    mkdir -p .build
    "$SWIFT" test --skip-build --disable-swift-testing 2>&1 | tee "$log"
    exit "${PIPESTATUS[0]}"
    ;;
summary)
    [ -f "$log" ] || exit 0
    grep -aE "^Test Case '.*' failed \(" "$log" | sed -E "s/^Test Case '(.*)' failed.*/  failed: \1/" | sort -u
    last=$(grep -aE "^Test Case '.*' started at" "$log" | tail -n 1 | sed -E "s/^Test Case '(.*)' started at.*/\1/")
    if [ -n "$last" ] && ! grep -aqF "Test Case '$last' passed" "$log" && ! grep -aqF "Test Case '$last' failed" "$log"; then
        echo "  the test process ended during: $last"
        grep -aE "Fatal error|Precondition failed|Assertion failed|exited with unexpected signal" "$log" | head -n 3 | cut -c1-300 | sed 's/^/    /'
    fi
    ;;
*)
    echo "usage: scripts/suite.sh [summary]" >&2
    exit 2
    ;;
esac
