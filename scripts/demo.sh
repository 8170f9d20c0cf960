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
# handoff PRODUCT A-ARGS… -- B-ARGS…: PRODUCT as device A, then as device B dialing A; both transcripts.
handoff() {
  local product=$1; shift
  local a_args=() b_args=()
  while [ "$1" != "--" ]; do a_args+=("$1"); shift; done; shift
  b_args=("$@")
  : > "$work/a.log"
  coproc device_a { "$bin/$product" --device "$work/A" "${a_args[@]}" 2>&1; }
  local a_pid=$device_a_PID
  exec {a_out}<&"${device_a[0]}"  # a copy: bash closes the coprocess's own descriptors when it exits
  # A says where it listens; read its output until then (blocking reads: no polling).
  local address=""
  while IFS= read -r line <&"$a_out"; do
    echo "$line" >> "$work/a.log"
    case "$line" in *"listening on"*) address=${line##* }; break ;; esac
  done
  [ -n "$address" ] || { cat "$work/a.log"; exit 1; }
  echo "-- device B: --"
  "$bin/$product" --device "$work/B" --peer "$address" "${b_args[@]}" 2>/dev/null
  cat <&"$a_out" >> "$work/a.log"
  exec {a_out}<&-
  wait "$a_pid" 2>/dev/null || true
  echo "-- device A: --"
  grep -v " info " "$work/a.log"
}
handoff baton-shapes --create pentagon -- --continue-nearby

echo
echo "== MapViewer (the seed \"Continuing User Activities with Handoff\"): a store's details continue on B; A dismisses its popover =="
handoff baton-mapviewer --edit-store "Apple Fifth Avenue" --favorite -- --continue-nearby

echo
echo "== Mail: the draft in the payload, its 8 MB attachment over continuation streams =="
head -c 8388608 /dev/urandom > "$work/holiday.jpg"
mkdir -p "$work/inbox"
handoff baton-mail --compose --to ada@example.org --subject Holiday --body "The photo." --attach "$work/holiday.jpg" \
  -- --continue-nearby --save-to "$work/inbox"

echo
echo "== Reader: an article continues in the Reader on B, at the same page and scroll position =="
handoff baton-reader --read 7 --page 3 --scroll 0.42 -- --continue-nearby
