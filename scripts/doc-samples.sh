#!/usr/bin/env bash
# The code samples of the README and the DocC articles (Tests/DocSamples), built as a user's
# package builds them: a separate package that depends on Baton by path, so it sees only the
# public API. Fails on a build error or on a warning in a sample. `make test` runs it.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$swift" build --package-path "$here/Tests/DocSamples" --scratch-path "$here/.build-samples" > "$log" 2>&1
status=$?
if [ $status -ne 0 ]; then
  grep -E "error|warning: [^p]" "$log" | head -40 >&2
  echo "doc samples: the sample package does not build (Tests/DocSamples)" >&2
  exit 1
fi
if grep -E "Tests/DocSamples/.*warning:" "$log" >&2; then
  echo "doc samples: a sample has a warning" >&2
  exit 1
fi
samples=$(find -L "$here/Tests/DocSamples/Sources" -name '*.swift' | wc -l)
echo "doc samples: the $samples sample files of the README and the DocC articles build as a package of their own"
