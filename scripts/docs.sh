#!/usr/bin/env bash
# `make docs` and `make docs-coverage` (Makefile). Offline; needs a built package.
#
#   scripts/docs.sh build      the DocC archives of Baton, BatonContinuity, BatonLoop and
#                              BatonAgent (catalogs in Sources/*/*.docc) into .build/docs, with
#                              swift-docc-plugin; a DocC warning (a link that does not resolve)
#                              fails it
#   scripts/docs.sh coverage   the public symbols' symbol graphs (`swift package
#                              dump-symbol-graph`), then scripts/doc-coverage.py: fails, naming
#                              each, if a public symbol of Baton, BatonContinuity, BatonLoop or
#                              BatonAgent has no documentation
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
OUTPUT=${DOCS_OUTPUT:-.build/docs}
# BatonGtk is built, so documented and checked, only where GTK 4's development files are.
GTK_MODULE=""
[ -f /usr/include/gtk-4.0/gtk/gtk.h ] && GTK_MODULE=" BatonGtk"
REQUIRED=${DOCS_REQUIRED:-"Baton BatonContinuity BatonLoop BatonAgent$GTK_MODULE"}
REPORTED=${DOCS_REPORTED:-""}

build() {
    local targets=()
    for module in Baton BatonContinuity BatonLoop BatonAgent $GTK_MODULE; do targets+=(--target "$module"); done
    mkdir -p "$OUTPUT"
    "$SWIFT" package --allow-writing-to-directory "$OUTPUT" generate-documentation "${targets[@]}" \
        --output-path "$OUTPUT" --disable-indexing --transform-for-static-hosting --warnings-as-errors
}

coverage() {
    local graphs
    graphs=$("$SWIFT" package dump-symbol-graph --minimum-access-level public 2>/dev/null | sed -n 's/^Files written to //p')
    [ -n "$graphs" ] || { echo "docs: swift package dump-symbol-graph wrote no symbol graphs" >&2; return 1; }
    if [ -n "$REPORTED" ]; then
        # shellcheck disable=SC2086
        python3 scripts/doc-coverage.py "$graphs" $REPORTED --report-only
    fi
    # shellcheck disable=SC2086
    python3 scripts/doc-coverage.py "$graphs" $REQUIRED
}

case "${1:-}" in
    build) build ;;
    coverage) coverage ;;
    *) echo "usage: scripts/docs.sh build|coverage" >&2; exit 2 ;;
esac
