#!/usr/bin/env bash
# make demo: the runtime's tour, then two real continuations between processes on this machine.
set -euo pipefail
bin="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== Screens: windows, first responders and actions on the GLib loop =="
"$bin/baton-screens" --demo

echo
echo "== Shapes (the seed 'Implementing Handoff in Your App'): one process creates a shape… =="
"$bin/baton-shapes" --save "$work/shape.handoff" --shape triangle
echo "== …a second process continues it =="
"$bin/baton-shapes" --continue "$work/shape.handoff"

echo
echo "== Notes: a document's activity, made by the runtime, continued by opening the document =="
printf 'Groceries\nmilk\nbread\ncoffee\n' > "$work/groceries.note"
"$bin/baton-notes" --save "$work/note.handoff" "$work/groceries.note" --line 3
echo "== …a second process continues it =="
"$bin/baton-notes" --continue "$work/note.handoff"
