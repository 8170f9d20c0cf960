#!/bin/sh
# One test host, run as the first process of fresh network, mount, UTS and PID namespaces
# (see Tests/HostSupport/TestHost.swift, which starts it through `unshare`; the tests and the bench share it):
#     test-host.sh NAME ADDRESS/PREFIX COMMAND...
# It makes /run private (tmpfs), mounts its own /proc, says `waiting-for-link`, waits for a line on stdin while the
# caller moves the interface `veth0` in, brings the network up, starts the host's own
# `dbus-daemon --system` and `avahi-daemon` (not with TEST_HOST_AVAHI=0: the test starts it
# later), says `host NAME up`, and becomes COMMAND. When COMMAND ends, the kernel ends every
# process of the host and removes its namespaces.
set -eu
name=$1 address=$2
shift 2
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t proc proc /proc  # the host's own PIDs (a crash backtrace reads /proc/self)
mkdir -p /run/dbus /run/avahi-daemon
hostname "$name"
echo "waiting-for-link"
read -r _
ip link set lo up
ip address add "$address" dev veth0
ip link set veth0 up
dbus-daemon --system --fork
cat > /run/avahi-daemon.conf <<CONF
[server]
host-name=$name
use-ipv4=yes
use-ipv6=no
allow-interfaces=veth0
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[publish]
publish-hinfo=no
publish-workstation=no
CONF
if [ "${TEST_HOST_AVAHI:-1}" = 1 ]; then
  avahi-daemon --file=/run/avahi-daemon.conf --no-chroot --no-rlimits --daemonize
fi
echo "host $name up"
exec "$@"
