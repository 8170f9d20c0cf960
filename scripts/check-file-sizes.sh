#!/usr/bin/env bash
# Fails, naming each, if a source file of the continuity and agent layers (Sources/BatonContinuity,
# Sources/BatonAgent) is over 400 lines: a file that long holds more than one concept and is
# split (docs/LAYOUT.md). `make test` runs it.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd -P)"
limit=400
status=0
while IFS= read -r -d '' file; do
    lines=$(wc -l < "$file")
    if [ "$lines" -gt "$limit" ]; then
        echo "${file#"$root"/}: $lines lines, over $limit: split it by concept"
        status=1
    fi
done < <(find "$root/Sources/BatonContinuity" "$root/Sources/BatonAgent" -type f \( -name '*.swift' -o -name '*.c' -o -name '*.h' \) -print0)
exit $status
