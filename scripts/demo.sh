#!/usr/bin/env bash
# make demo: the runtime's tour, then two real continuations between processes on this machine.
set -euo pipefail
bin="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== Screens: windows, first responders, key events and actions on the GLib loop =="
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
echo "== B joins with a code: it makes its own key, the group certifies it once both sides confirm (answers scripted) =="
# The window (on the machine with the group's authority) and the new device, each with its input
# and output on a pipe the demo holds. B types the code A shows (--code) and says it matches; A's
# person, asked whether B says so, then says yes.
mkfifo "$work/window.in" "$work/window.out" "$work/newcomer.in" "$work/newcomer.out"
"$bin/baton" pair --accept --listen 127.0.0.1:0 --timeout 60 --config "$work/admin" < "$work/window.in" > "$work/window.out" 2>&1 &
window_pid=$!
exec {window_in}>"$work/window.in" {window_out}<"$work/window.out"
port=""
while IFS= read -r line <&"$window_out"; do
  echo "A: $line"
  case "$line" in *"pairing window open on"*) port=${line##*127.0.0.1:}; port=${port%% *}; break ;; esac
done
[ -n "$port" ] || { echo "demo: the pairing window did not open" >&2; exit 1; }
"$bin/baton" pair "127.0.0.1:$port" --name B --code --timeout 60 --config "$work/B-config" < "$work/newcomer.in" > "$work/newcomer.out" 2>&1 &
newcomer_pid=$!
exec {newcomer_in}>"$work/newcomer.in" {newcomer_out}<"$work/newcomer.out"
code=""
while IFS= read -r line <&"$window_out"; do
  echo "A: $line"
  case "$line" in *"(type it on the new device)"*) code=${line##*: code }; code=${code%% (type it*}; break ;; esac
done
[ -n "$code" ] || { echo "demo: no code from the pairing window" >&2; exit 1; }
echo "(the person types $code on B, and answers y on A)"
echo "$code" >&"$newcomer_in"
echo y >&"$window_in"
exec {window_in}>&- {newcomer_in}>&-
sed 's/^/B: /' <&"$newcomer_out"
sed 's/^/A: /' <&"$window_out"
exec {window_out}<&- {newcomer_out}<&-
wait "$newcomer_pid" && wait "$window_pid" || { echo "demo: pairing failed" >&2; exit 1; }
mv "$work/B-config/device" "$work/B"
# handoff PRODUCT A-ARGS… -- B-ARGS…: PRODUCT as device A, then as device B dialing A; both transcripts.
handoff() {
  local product=$1; shift
  local a_args=() b_args=()
  while [ "$1" != "--" ]; do a_args+=("$1"); shift; done; shift
  b_args=("$@")
  : > "$work/a.log"
  coproc device_a { "$bin/$product" --device "$work/A" --listen 127.0.0.1:0 "${a_args[@]}" 2>&1; }
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
  "$bin/$product" --device "$work/B" --listen 127.0.0.1:0 --peer "$address" "${b_args[@]}" 2>/dev/null
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

echo
echo "== One agent per device: A's agent serves Mail and Reader; B runs nothing but its agent, which starts Mail to continue =="
# Each agent's socket is in a private folder, as in $XDG_RUNTIME_DIR/baton. B's apps are installed
# (desktop entry + manifest) into B's own XDG data folder, where B's agent looks for them.
here=$(cd "$(dirname "$0")/.." && pwd)
run="$work/run"; mkdir -m 700 "$run"
b_data="$work/B-data"; mkdir -p "$work/B-inbox" "$work/no-system-apps"
export XDG_DATA_DIRS="$work/no-system-apps"
pids=()
# start NAME CMD…: runs CMD with its output (stdout and stderr) to a pipe the demo reads; the
# process is ended when the demo ends.
start() {
  local name=$1; shift
  mkfifo "$work/$name.fifo"
  "$@" > "$work/$name.fifo" 2>&1 &
  pids+=($!)
  eval "${name}_pid=$!"
  exec {fd}<"$work/$name.fifo"
  eval "${name}_fd=$fd"
  : > "$work/$name.log"
}
# wait_for NAME TEXT: reads NAME's output into its log until a line contains TEXT (blocking reads).
wait_for() {
  local name=$1 text=$2 fd line
  eval "fd=\$${name}_fd"
  while IFS= read -r line <&"$fd"; do
    echo "$line" >> "$work/$name.log"
    case "$line" in *"$text"*) return 0 ;; esac
  done
  echo "demo: $name ended before saying \"$text\":" >&2; cat "$work/$name.log" >&2; exit 1
}
# finish NAME: the rest of NAME's output, once it has ended.
finish() {
  local name=$1 fd
  eval "fd=\$${name}_fd"
  cat <&"$fd" >> "$work/$name.log"
  exec {fd}<&-
}
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT

start agent_a "$bin/batond" --device "$work/A" --local --socket "$run/a.sock"
wait_for agent_a "listening on"
address=$(grep -o "listening on [^,]*" "$work/agent_a.log" | cut -d' ' -f3)
XDG_DATA_HOME="$b_data" XDG_STATE_HOME="$work/B-state" start agent_b "$bin/batond" --device "$work/B" --local --socket "$run/b.sock" --peer "$address"
wait_for agent_b "linked with A"
echo "-- device B: baton app install (Mail and Reader, into B's XDG data folder) --"
XDG_DATA_HOME="$b_data" "$bin/baton" app install "$here/Examples/Mail/Manifest/Info.plist" --name Mail \
  --exec "$bin/baton-mail --save-to $work/B-inbox" | sed "s|$work|…|g"
XDG_DATA_HOME="$b_data" "$bin/baton" app install "$here/Examples/Reader/Manifest/Info.plist" --name Reader \
  --exec "$bin/baton-reader" | sed "s|$work|…|g"
echo "-- device A: Reader, then Mail (active last) join A's agent --"
start reader_a "$bin/baton-reader" --agent "$run/a.sock" --read 7 --page 3
wait_for reader_a "joined the agent"
start mail_a "$bin/baton-mail" --agent "$run/a.sock" --compose --to ada@example.org --subject Holiday \
  --body "The photo, from the agent." --attach "$work/holiday.jpg"
wait_for mail_a "joined the agent"
echo "-- device B: baton nearby (asks B's agent) --"
# B's agent hears of Mail's draft over the link; `baton nearby --watch` shows the change as it comes.
start nearby_b "$bin/baton" nearby --watch --agent "$run/b.sock" --config "$work/no-config"
wait_for nearby_b "com.example.mail.compose"
kill "$nearby_b_pid"; finish nearby_b
"$bin/baton" nearby --agent "$run/b.sock" --config "$work/no-config"
echo "-- device B: baton continue (B's agent starts Mail from its desktop entry and hands it the draft) --"
"$bin/baton" continue --agent "$run/b.sock" --config "$work/no-config"
wait "$mail_a_pid" || true
finish mail_a
wait_for agent_b "launched app com.example.mail (pid"
echo "-- device B: the Mail the agent started --"
grep -E "launched to|restoreUserActivityState|received|saved it" "$work/B-state/baton/apps/com.example.mail.log" | sed "s|$work|…|g"
cmp -s "$work/holiday.jpg" "$work/B-inbox/holiday.jpg" && echo "(the attachment in B's inbox is the same 8 MB)"
echo "-- device A: Mail --"
grep -v " info " "$work/mail_a.log"
