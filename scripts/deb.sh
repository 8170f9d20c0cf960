#!/usr/bin/env bash
# make deb: baton_VERSION_ARCH.deb, a Debian package of baton, batond, their systemd user units
# and docs, made with dpkg-deb from a staged install (scripts/install.sh, PREFIX=/usr).
#   scripts/deb.sh BIN_DIR [OUT_DIR]   (BIN_DIR: where `swift build` put baton and batond;
#                                       OUT_DIR: where the .deb is written, default .)
# VERSION is DEB_VERSION if set, else BatonVersion.current in Sources/BatonAgent/BatonVersion.swift
# (the single place the version lives, what `baton --version` says; git is not needed). ARCH is `dpkg --print-architecture`. Depends are what
# dpkg-shlibdeps finds the binaries link from Debian packages, plus glib-networking (GIO's TLS,
# loaded at run time). A library the binaries link that no Debian package provides (the Swift
# runtime of a toolchain, unless built with --static-swift-stdlib) stops it, naming the library;
# DEB_ALLOW_UNPACKAGED=1 only warns (for tests packaging a debug build on a machine that has
# the toolchain). The package is built in a temporary folder and moved into place at the end.
set -euo pipefail
bin_dir=${1:?usage: deb.sh BIN_DIR [OUT_DIR]}
out_dir=${2:-.}
here=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "deb.sh: $*" >&2; exit 2; }
for tool in dpkg dpkg-deb dpkg-shlibdeps ldd strip; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing (Debian packages dpkg, dpkg-dev, libc-bin, binutils: scripts/install-deps.sh)"
done
for program in baton batond; do
  [ -x "$bin_dir/$program" ] || fail "$bin_dir/$program is missing: build it first"
done
[ -d "$out_dir" ] || fail "$out_dir (OUT_DIR) is not a folder"

version=${DEB_VERSION:-}
if [ -z "$version" ]; then
  # The one place the version is written: what `baton --version` and `baton status` say.
  source_file="$here/Sources/BatonAgent/BatonVersion.swift"
  version=$(sed -n 's/^ *public static let current = "\(.*\)"$/\1/p' "$source_file")
  [ -n "$version" ] || fail "$source_file says no version (public static let current = \"…\") and DEB_VERSION is not set"
fi
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || fail "'$version' is not a Debian version (from ${DEB_VERSION:+DEB_VERSION}${DEB_VERSION:-BatonVersion.swift}): digits first, then letters, digits and . + ~ -"
arch=$(dpkg --print-architecture)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

# The libraries the binaries link must come from Debian packages.
mapfile -t linked < <(for program in baton batond; do ldd "$bin_dir/$program"; done | sed "s/ (0x[0-9a-f]*)$//" | sort -u)
unpackaged=()
for line in "${linked[@]}"; do
  read -r name arrow path _ <<< "$line"
  [ "$arrow" = "=>" ] || continue
  [ "$path" != "not" ] || fail "$bin_dir/baton or batond needs $name, which is not found (ldd)"
  owned=""
  for candidate in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
    if dpkg -S "$candidate" >/dev/null 2>&1; then owned=yes; break; fi
  done
  [ -n "$owned" ] || unpackaged+=("$path")
done
if [ ${#unpackaged[@]} -gt 0 ]; then
  folders=$(for path in "${unpackaged[@]}"; do dirname "$path"; done | sort -u | tr '\n' ' ')
  names=$(for path in "${unpackaged[@]}"; do basename "$path"; done | sort | tr '\n' ' ')
  message="$bin_dir/baton and batond link ${#unpackaged[@]} libraries no Debian package provides (${names% }, from ${folders% }): build them with --static-swift-stdlib (make deb does)"
  [ "${DEB_ALLOW_UNPACKAGED:-}" = 1 ] || fail "$message"
  echo "deb.sh: warning (DEB_ALLOW_UNPACKAGED=1): $message" >&2
fi

# The staged install, as Debian lays it out: stripped programs, no install manifest (dpkg keeps
# the file list), LICENSE as the copyright file.
PREFIX=/usr DESTDIR="$root" UNITDIR= bash "$here/scripts/install.sh" "$bin_dir" >/dev/null
# Stripped of symbols and debug information, as Debian ships programs (about 40% smaller).
strip --strip-unneeded "$root/usr/bin/baton" "$root/usr/bin/batond"
rm -f "$root/usr/share/baton/installed-files"
rmdir "$root/usr/share/baton"
docdir=$root/usr/share/doc/baton
[ -f "$docdir/LICENSE" ] || fail "$here/LICENSE is missing: the package needs it as its copyright file"
mv "$docdir/LICENSE" "$docdir/copyright"

# Depends: dpkg-shlibdeps reads debian/control, so it runs in a folder that has a minimal one.
mkdir -p "$work/shlibs/debian"
printf 'Source: baton\n\nPackage: baton\nArchitecture: any\n' > "$work/shlibs/debian/control"
shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O --ignore-missing-info --warnings=0 \
  "$root/usr/bin/baton" "$root/usr/bin/batond" 2>"$work/shlibdeps.err") \
  || fail "dpkg-shlibdeps failed on the binaries: $(cat "$work/shlibdeps.err")"
depends=${shlibs#shlibs:Depends=}
[ -n "$depends" ] && [ "$depends" != "$shlibs" ] || fail "dpkg-shlibdeps found no dependencies: '$shlibs'"
depends="$depends, glib-networking"

mkdir -p "$root/DEBIAN"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" -e "s|@INSTALLED_SIZE@|$installed_size|" \
  "$here/dist/debian/control.in" > "$root/DEBIAN/control"
# dpkg-deb wants 0755 folders and no group- or other-writable files.
find "$root" -type d -exec chmod 0755 {} +
chmod -R go-w "$root"

deb=baton_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$work/$deb" >/dev/null
mv "$work/$deb" "$out_dir/$deb"
echo "$out_dir/$deb"
