#!/usr/bin/env bash
# Installs the Debian packages Baton needs, only those missing. Idempotent; safe in CI.
set -euo pipefail
# Build: GLib/GIO, GnuTLS for GIO, Avahi's client and GLib adapter, libsoup (HTTPS).
# Tests: openssl (a foreign TLS client); dbus-daemon, avahi-daemon, avahi-utils (avahi-browse),
# iproute2 and util-linux (unshare, nsenter, setpriv) for the network-namespace test hosts;
# systemd for systemd-socket-activate (the agent started by socket activation, as its user unit does).
# Docs: python3 for the documentation coverage check (scripts/doc-coverage.py).
# make deb: dpkg-dev for dpkg-shlibdeps (the package's Depends; dpkg-deb itself is in dpkg).
# BatonGtk (optional; without these the package builds without it and its tests skip): GTK 4's
# development files (libgtk-4-dev), GTK's tools and settings schemas (libgtk-4-bin), and Xvfb
# (xvfb), the virtual display its tests and the GTK figure of `make bench` open windows on;
# libxtst6, the X server's test extension, through which those tests type real key presses.
# Beyond one network: libnice-dev (ICE: host, STUN and TURN candidates over GLib), libmosquitto-dev
# (the MQTT client that carries the sealed ICE offers through the user's broker); for its tests,
# coturn (a real TURN relay), mosquitto (a real broker) and nftables (NAT between test hosts).
packages=(pkg-config libglib2.0-dev glib-networking libavahi-client-dev libavahi-glib-dev libsoup-3.0-dev
          openssl dbus-daemon avahi-daemon avahi-utils iproute2 util-linux systemd python3 dpkg-dev
          libgtk-4-dev libgtk-4-bin xvfb libxtst6
          libnice-dev libmosquitto-dev coturn mosquitto nftables)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "baton: installing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
