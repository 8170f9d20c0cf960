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

echo
echo "== Two devices of one group: identities made by \`baton\`, a shape handed from A to B over mutual TLS =="
baton() { "$bin/baton" "$@" --config "$work/admin"; }
baton group create "Demo user"
baton device add A --out "$work/A"
baton device add B --out "$work/B"
coproc device_a { "$bin/baton-shapes" --device "$work/A" --create pentagon 2>&1; }
exec {a_out}<&"${device_a[0]}"  # a copy: bash closes the coprocess's own descriptors when it exits
# A says where it listens; read its output until then (blocking reads: no polling).
address=""
while IFS= read -r line <&"$a_out"; do
  echo "$line" >> "$work/a.log"
  case "$line" in *"listening on"*) address=${line##* }; break ;; esac
done
[ -n "$address" ] || { cat "$work/a.log"; exit 1; }
echo "-- device B: --"
"$bin/baton-shapes" --device "$work/B" --peer "$address" --continue-nearby 2>/dev/null
cat <&"$a_out" >> "$work/a.log"
exec {a_out}<&-
echo "-- device A: --"
grep -v " info " "$work/a.log"
