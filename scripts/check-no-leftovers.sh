#!/usr/bin/env bash
# Fails (naming them) if a process started from this repository's build folders (.build*/)
# is still alive — a test left it behind — and then kills them, so the machine is clean.
# `make test` runs it after the suite, whether the suite passed or not.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd -P)"
self=$$
leftovers=()
for entry in /proc/[0-9]*; do
    pid="${entry#/proc/}"
    [ "$pid" = "$self" ] && continue
    # The executable, or for an interpreter or wrapper its first argument.
    exe="$(readlink "$entry/exe" 2>/dev/null)" || continue
    arg0="$(tr '\0' '\n' < "$entry/cmdline" 2>/dev/null | head -n 1)"
    for path in "$exe" "$arg0"; do
        case "$path" in
            "$root"/.build*/*)
                leftovers+=("$pid")
                break
                ;;
        esac
    done
done
[ "${#leftovers[@]}" -eq 0 ] && exit 0
echo "error: ${#leftovers[@]} process(es) started from $root/.build* outlived the tests:" >&2
for pid in "${leftovers[@]}"; do
    echo "  pid $pid (parent $(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null)): $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" >&2
done
kill -KILL "${leftovers[@]}" 2>/dev/null
echo "they have been killed" >&2
exit 1
