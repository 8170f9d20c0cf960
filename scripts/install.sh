#!/usr/bin/env bash
# make install: baton, batond, the systemd user units and the docs under $DESTDIR$PREFIX.
#   scripts/install.sh BIN_DIR   (BIN_DIR: where `swift build` put baton and batond)
# PREFIX (default /usr/local) is where the files will live; DESTDIR (default empty) is
# prepended only while copying, for staged installs and packages. Everything is checked and
# staged in a temporary folder first, so a missing file stops it before anything is copied.
set -euo pipefail
bin_dir=${1:?usage: install.sh BIN_DIR}
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
here=$(cd "$(dirname "$0")/.." && pwd)
case "$prefix" in /*) ;; *) echo "install.sh: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;; esac
for program in baton batond; do
  [ -x "$bin_dir/$program" ] || { echo "install.sh: $bin_dir/$program is missing: build it first" >&2; exit 2; }
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bindir=$prefix/bin docdir=$prefix/share/doc/baton unitdir=$prefix/lib/systemd/user
install -d "$stage$bindir" "$stage$docdir" "$stage$unitdir"
install -m 0755 "$bin_dir/baton" "$bin_dir/batond" "$stage$bindir/"
install -m 0644 "$here/dist/systemd/batond.socket" "$stage$unitdir/"
sed -e "s|@BINDIR@|$bindir|g" -e "s|@DOCDIR@|$docdir|g" "$here/dist/systemd/batond.service.in" > "$stage$unitdir/batond.service"
chmod 0644 "$stage$unitdir/batond.service"
install -m 0644 "$here/README.md" "$here/docs/"*.md "$stage$docdir/"
[ -f "$here/LICENSE" ] && install -m 0644 "$here/LICENSE" "$stage$docdir/"

mkdir -p "${destdir:-/}"
cp -R "$stage/." "${destdir:-/}"
echo "installed baton and batond in $destdir$bindir, the user units in $destdir$unitdir, the docs in $destdir$docdir"
echo "enable the agent with: systemctl --user daemon-reload && systemctl --user enable --now batond.socket"
