#!/usr/bin/env bash
# Installs the device examples as apps the agent can launch to continue an activity: for each,
# its desktop entry and manifest in $XDG_DATA_HOME (by `baton app install`), with the launch
# form of docs/EXAMPLES.md — the program with no mode, which joins the agent and waits for the
# continuation the agent hands it.
#   scripts/install-examples.sh BIN_DIR [AGENT_SOCKET]
# BIN_DIR: where `swift build` put baton and the examples. AGENT_SOCKET: the agent the apps
# join (`--agent`); by default the user's own, found by each app when it starts
# ($BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket). GtkNotes, when it was built,
# joins only with --agent: it is given AGENT_SOCKET or the user's socket as it is now.
# Notes (baton-notes) is not installed: it continues from a handoff file, not through the agent.
set -euo pipefail
bin_dir=${1:?usage: install-examples.sh BIN_DIR [AGENT_SOCKET]}
socket=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
bin_dir=$(cd "$bin_dir" && pwd)
[ -x "$bin_dir/baton" ] || { echo "install-examples.sh: $bin_dir/baton is missing: build it first" >&2; exit 2; }

# One argument as a desktop entry's Exec line wants it: as is when it has no reserved
# character, else in double quotes with ", `, $ and \ escaped (and % doubled, always).
desktop_quote() {
  local value=${1//%/%%}
  if [[ $value =~ ^[A-Za-z0-9_@%+=:,./-]+$ ]]; then
    printf '%s' "$value"
  else
    value=${value//\\/\\\\}; value=${value//\"/\\\"}; value=${value//\`/\\\`}; value=${value//\$/\\\$}
    printf '"%s"' "$value"
  fi
}

install_example() {  # FOLDER PROGRAM NAME [ARGUMENT…]
  local folder=$1 program=$2 name=$3 exec
  shift 3
  [ -x "$bin_dir/$program" ] || { echo "install-examples.sh: $bin_dir/$program is missing: build it first" >&2; exit 2; }
  exec=$(desktop_quote "$bin_dir/$program")
  for argument in "$@"; do exec+=" $(desktop_quote "$argument")"; done
  "$bin_dir/baton" app install "$here/Examples/$folder/Manifest/Info.plist" --name "$name" --exec "$exec"
}

agent=()
[ -n "$socket" ] && agent=(--agent "$socket")
install_example Shapes baton-shapes Shapes "${agent[@]}"
install_example MapViewer baton-mapviewer "Map Viewer" "${agent[@]}"
install_example Mail baton-mail Mail "${agent[@]}"
install_example Reader baton-reader Reader "${agent[@]}"
if [ -x "$bin_dir/baton-gtknotes" ]; then
  if [ -z "$socket" ]; then
    if [ -n "${BATON_AGENT_SOCKET:-}" ]; then socket=$BATON_AGENT_SOCKET
    else socket=${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/baton/agent.socket; fi
  fi
  install_example GtkNotes baton-gtknotes "GTK Notes" --agent "$socket"
fi
