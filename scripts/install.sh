#!/usr/bin/env bash
# make install: baton, batond, the systemd user units and the docs under $DESTDIR$PREFIX.
#   scripts/install.sh BIN_DIR   (BIN_DIR: where `swift build` put baton and batond)
# PREFIX (default /usr/local) is where the files will live; DESTDIR (default empty) is
# prepended only while copying, for staged installs and packages. The user units go where the
# systemd user manager looks: $PREFIX/share/systemd/user (found for /usr/local and ~/.local),
# /usr/lib/systemd/user for PREFIX=/usr, or UNITDIR if given.
# Everything is checked and staged in a temporary folder first, so a missing file or a folder
# that cannot be written stops it before anything is copied. What it installs, and the folders
# it creates, are listed in $PREFIX/share/baton/installed-files, which scripts/uninstall.sh
# (make uninstall) reads to take back exactly that.
set -euo pipefail
bin_dir=${1:?usage: install.sh BIN_DIR}
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
here=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "install.sh: $*" >&2; exit 2; }
case "$prefix" in /*) ;; *) fail "PREFIX must be an absolute path, not '$prefix'" ;; esac
[ "$prefix" = / ] || prefix=${prefix%/}
case "$prefix" in */../*|*/..|*$'\n'*) fail "PREFIX must not contain '..' or a newline: '$prefix'" ;; esac
case "$destdir" in ''|/*) ;; *) fail "DESTDIR must be empty or an absolute path, not '$destdir'" ;; esac
for program in baton batond; do
  [ -x "$bin_dir/$program" ] || fail "$bin_dir/$program is missing: build it first"
done

bindir=$prefix/bin docdir=$prefix/share/doc/baton datadir=$prefix/share/baton
if [ -n "${UNITDIR:-}" ]; then
  unitdir=${UNITDIR%/}
  case "$unitdir" in /*) ;; *) fail "UNITDIR must be an absolute path, not '$UNITDIR'" ;; esac
  case "$unitdir" in */../*|*/..|*$'\n'*) fail "UNITDIR must not contain '..' or a newline: '$UNITDIR'" ;; esac
elif [ "$prefix" = /usr ]; then
  unitdir=/usr/lib/systemd/user
else
  unitdir=$prefix/share/systemd/user
fi
manifest=$datadir/installed-files

# A real install (no DESTDIR): say so if the systemd user manager would not find the units.
if [ -z "$destdir" ] && command -v systemd-analyze >/dev/null 2>&1; then
  if paths=$(systemd-analyze --user unit-paths 2>/dev/null) && [ -n "$paths" ] \
     && ! printf '%s\n' "$paths" | grep -Fqx -- "$unitdir"; then
    echo "install.sh: warning: the systemd user manager does not look for units in $unitdir;" \
         "pass UNITDIR= one of the folders \`systemd-analyze --user unit-paths\` lists" \
         "(e.g. UNITDIR=$HOME/.config/systemd/user), or batond.socket will not be found" >&2
  fi
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -d "$stage$bindir" "$stage$docdir" "$stage$unitdir" "$stage$datadir"
install -m 0755 "$bin_dir/baton" "$bin_dir/batond" "$stage$bindir/"
install -m 0644 "$here/dist/systemd/batond.socket" "$stage$unitdir/"
sed -e "s|@BINDIR@|$bindir|g" -e "s|@DOCDIR@|$docdir|g" "$here/dist/systemd/batond.service.in" > "$stage$unitdir/batond.service"
chmod 0644 "$stage$unitdir/batond.service"
install -m 0644 "$here/README.md" "$here/docs/"*.md "$stage$docdir/"
if [ -f "$here/LICENSE" ]; then install -m 0644 "$here/LICENSE" "$stage$docdir/"; fi

# What will be copied: every file of the stage, and every folder it needs that does not exist yet.
root=${destdir:-}
mapfile -t files < <(cd "$stage" && find . -type f | sed 's|^\.||' | sort)
files+=("$manifest")
mapfile -t folders < <(cd "$stage" && find . -mindepth 1 -type d | sed 's|^\.||' | sort)
created=()
for folder in "${folders[@]}"; do
  [ -d "$root$folder" ] || created+=("$folder")
done
# A reinstall keeps what an earlier install recorded (the folders it created, files since dropped).
previous=()
if [ -f "$root$manifest" ]; then
  while IFS= read -r line; do
    case "$line" in /*) [ -e "$root${line%/}" ] && previous+=("$line") ;; esac
  done < "$root$manifest"
fi
{
  echo "# Installed by Baton's scripts/install.sh (PREFIX=$prefix); scripts/uninstall.sh removes each"
  echo "# file listed, then each folder (ending in /) that is empty by then."
  {
    for file in "${files[@]}"; do echo "$file"; done
    for folder in "${created[@]+"${created[@]}"}"; do echo "$folder/"; done
    for line in "${previous[@]+"${previous[@]}"}"; do echo "$line"; done
  } | sort -u
} > "$stage$manifest"
chmod 0644 "$stage$manifest"

# Every folder written into must be writable: each file's folder, or for a folder still to be
# made the nearest one that exists.
for file in "${files[@]}"; do
  [ ! -d "$root$file" ] || fail "$root$file is a folder: cannot install a file there"
  target=$(dirname "$root$file")
  while [ ! -e "$target" ]; do target=$(dirname "$target"); done
  [ -d "$target" ] || fail "$target is not a folder: cannot install $root$file"
  [ -w "$target" ] || fail "cannot write to $target (installing into $root$prefix): run as a user who can (sudo), or pass another PREFIX"
done

for folder in "${folders[@]}"; do install -d -m 0755 "$root$folder"; done
for file in "${files[@]}"; do
  # install(1) replaces the file (a running batond keeps its old copy) rather than writing into it.
  install -m "$(stat -c %a "$stage$file")" "$stage$file" "$root$file"
done
echo "installed baton and batond in $destdir$bindir, the user units in $destdir$unitdir, the docs in $destdir$docdir"
echo "the list of installed files is $destdir$manifest (make uninstall removes them)"
echo "enable the agent with: systemctl --user daemon-reload && systemctl --user enable --now batond.socket"
