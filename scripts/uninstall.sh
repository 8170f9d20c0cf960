#!/usr/bin/env bash
# make uninstall: takes back exactly what `make install` put under $DESTDIR$PREFIX, as listed in
# its manifest $PREFIX/share/baton/installed-files: each file listed, then each folder listed
# (those install created) that is empty by then, deepest first. Nothing else is touched; with
# no manifest it refuses. Pass the PREFIX and DESTDIR the install was made with.
#   PREFIX=/usr/local DESTDIR= scripts/uninstall.sh
# Every folder it must write to is checked first, so it removes all or nothing.
set -euo pipefail
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
fail() { echo "uninstall.sh: $*" >&2; exit 2; }
case "$prefix" in /*) ;; *) fail "PREFIX must be an absolute path, not '$prefix'" ;; esac
[ "$prefix" = / ] || prefix=${prefix%/}
case "$destdir" in ''|/*) ;; *) fail "DESTDIR must be empty or an absolute path, not '$destdir'" ;; esac
root=${destdir:-}
manifest=$prefix/share/baton/installed-files
[ -f "$root$manifest" ] || fail "no $root$manifest: nothing was installed with PREFIX=$prefix${destdir:+ DESTDIR=$destdir} by make install (or it was uninstalled); pass the PREFIX (and DESTDIR) it was installed with"

files=() folders=()
number=0
while IFS= read -r line || [ -n "$line" ]; do
  number=$((number + 1))
  case "$line" in '' | '#'*) continue ;; esac
  case "$line" in
    /*/../* | */.. | */./* | *//*) fail "$root$manifest line $number: '$line' is not a plain absolute path" ;;
    /*/) folders+=("${line%/}") ;;
    /*) files+=("$line") ;;
    *) fail "$root$manifest line $number: '$line' is not an absolute path" ;;
  esac
done < "$root$manifest"
case " ${files[*]-} " in *" $manifest "*) ;; *) fail "$root$manifest does not list itself: it was not written by make install" ;; esac

# All or nothing: each file to remove must be a file (not a folder) in a folder we may write to.
present=()
for file in "${files[@]}"; do
  [ -e "$root$file" ] || [ -L "$root$file" ] || continue
  [ ! -d "$root$file" ] || [ -L "$root$file" ] || fail "$root$file is a folder, but $root$manifest lists it as a file"
  [ -w "$(dirname "$root$file")" ] || fail "cannot write to $(dirname "$root$file") (removing $root$file): run as a user who can (sudo)"
  present+=("$file")
done

missing=$(( ${#files[@]} - ${#present[@]} ))
# The manifest last: if anything before it fails, it still says what is left.
for file in "${present[@]+"${present[@]}"}"; do
  [ "$file" = "$manifest" ] || rm -f -- "$root$file"
done
rm -f -- "$root$manifest"
# Deepest first; a folder that holds something not ours stays.
removed_folders=0
while IFS= read -r folder; do
  [ -n "$folder" ] && [ -d "$root$folder" ] || continue
  if rmdir -- "$root$folder" 2>/dev/null; then removed_folders=$((removed_folders + 1)); fi
done < <(for folder in "${folders[@]+"${folders[@]}"}"; do echo "$folder"; done | awk '{ print gsub("/", "/"), $0 }' | sort -rn | cut -d' ' -f2-)
gone=""
[ "$missing" -eq 0 ] || gone=" ($missing listed were already gone)"
echo "removed ${#present[@]} files and $removed_folders folders installed under $destdir$prefix$gone"
