import Foundation

/// Four kinds of network-namespace hosts (`TestHost.bare`) for the tests of links beyond one
/// network (issue 29; docs/PROTOCOL.md, 7): an "internet" host, and two "homes", each a router
/// doing NAT (nftables masquerade) with one device behind it.
///
///     home A: device 10.1.0.2 ── router 10.1.0.1 | 203.0.113.2 ─┐
///                                                                ├─ internet 203.0.113.1 (a bridge)
///     home B: device 10.2.0.2 ── router 10.2.0.1 | 203.0.113.3 ─┘
///
/// The routers have no route to the other home's network: a device reaches only the internet
/// addresses (the other router's public address among them). Each router translates what its
/// device sends (`masquerade` on its WAN side) and drops every new flow that comes in from
/// the WAN side (to itself or forwarded), as a home router does; only replies to what the home
/// sent come in. How a router maps is its `Mapping`. The internet host runs the servers a
/// test starts there (`start(inInternet:)`: coturn, mosquitto).
///
/// Everything made is removed with `shutDown()` (or when the topology is released, or the
/// test runner dies): the hosts' first processes end, so the kernel ends every process in
/// them and removes their namespaces, veths and rules; the topology's temporary folder goes too.
public final class NatTopology: @unchecked Sendable {
    /// How a home's router maps its device's UDP flows to its public address.
    public enum Mapping: Sendable, Equatable {
        /// Plain `masquerade`: Linux keeps the device's source port when it is free, so one
        /// local port appears as one public port whatever the destination — an
        /// endpoint-independent mapping (RFC 4787 4.1), with address-and-port-dependent
        /// filtering (conntrack lets in only replies): ICE's hole punching gets through.
        case endpointIndependent
        /// `masquerade fully-random`: every new flow (each destination address and port) gets a
        /// random public port, so the port a STUN server saw is not the one another peer sees —
        /// a symmetric NAT (endpoint-dependent mapping): only a relay gets through two of them.
        case symmetric
    }

    /// One home: its router and the device behind it.
    public struct Home: Sendable {
        /// The router (NAT): `lan` towards the device, `wan` on the internet.
        public let router: TestHost
        /// The device, whose default route goes through the router.
        public let device: TestHost
        /// The device's address in the home.
        public let deviceAddress: String
        /// The router's address on the internet (what servers and peers see of the device).
        public let publicAddress: String
    }

    /// The internet host's address.
    public static let internetAddress = "203.0.113.1"
    /// The internet network, as a coturn peer range (`allowed-peer-ip`; coturn refuses this
    /// documentation range otherwise, see `RelayServerConfig.deniedPeerRanges`).
    public static let internetPeerRange = "203.0.113.0-203.0.113.255"

    /// The internet host: the servers run here.
    public let internet: TestHost
    /// The two homes, A then B.
    public let homes: [Home]
    /// A temporary folder for the topology's files (removed with it); tests may put theirs in it.
    public let folder: URL
    /// Every host, internet first.
    public var hosts: [TestHost] { [internet] + homes.flatMap { [$0.router, $0.device] } }

    /// Why a topology cannot be made here (not root, a tool missing), or nil if it can.
    public static var unavailableReason: String? {
        if let reason = TestHost.unavailableReason { return reason }
        for tool in ["/usr/sbin/nft", "/usr/sbin/sysctl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (scripts/install-deps.sh installs it)"
        }
        return nil
    }

    /// Makes the five hosts and their links, home A's router mapping as `a` and home B's as
    /// `b`; with `blockingUDPBetweenHomes`, each router also drops the UDP its device sends to
    /// anything on the internet but the internet host (a network that lets no UDP through to
    /// peers, only to the relay). Returns once every address, route and rule is in place; on a
    /// failure, whatever was made is removed before the error is thrown.
    public init(_ a: Mapping, _ b: Mapping, blockingUDPBetweenHomes: Bool = false) throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-nat-\(UUID().uuidString)")
        var made: [TestHost] = []
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            func host(_ name: String) throws -> TestHost {
                let host = try TestHost.bare(name: name)
                made.append(host)
                return host
            }
            internet = try host("internet")
            try Self.configure(internet, [["ip", "link", "add", "br0", "type", "bridge"],
                                          ["ip", "link", "set", "br0", "up"],
                                          ["ip", "address", "add", Self.internetAddress + "/24", "dev", "br0"]])
            var homes: [Home] = []
            for (index, mapping) in [a, b].enumerated() {
                let letter = ["a", "b"][index], subnet = "10.\(index + 1).0"
                let router = try host("router-\(letter)"), device = try host("home-\(letter)")
                let home = Home(router: router, device: device, deviceAddress: subnet + ".2", publicAddress: "203.0.113.\(index + 2)")
                try TestHost.link(router, "wan", internet, "wan-\(letter)")
                try TestHost.link(router, "lan", device, "eth0")
                try Self.configure(internet, [["ip", "link", "set", "wan-\(letter)", "master", "br0"],
                                              ["ip", "link", "set", "wan-\(letter)", "up"]])
                try Self.configure(router, [["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"],
                                            ["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"],
                                            ["ip", "address", "add", home.publicAddress + "/24", "dev", "wan"],
                                            ["ip", "link", "set", "wan", "up"],
                                            ["ip", "address", "add", subnet + ".1/24", "dev", "lan"],
                                            ["ip", "link", "set", "lan", "up"]])
                let rules = folder.appendingPathComponent("router-\(letter).nft")
                try Data(Self.rules(mapping, blockingUDPBetweenHomes: blockingUDPBetweenHomes).utf8).write(to: rules)
                try Self.configure(router, [["nft", "-f", rules.path]])
                try Self.configure(device, [["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"],
                                            ["ip", "address", "add", home.deviceAddress + "/24", "dev", "eth0"],
                                            ["ip", "link", "set", "eth0", "up"],
                                            ["ip", "route", "add", "default", "via", subnet + ".1"]])
                homes.append(home)
            }
            self.homes = homes
        } catch {
            for host in made { host.shutDown() }
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// A router's nftables rules: masquerade on `wan` (randomised ports for `.symmetric`), and
    /// no new flow in from `wan` (conntrack still lets replies in; a dropped packet's flow is
    /// never confirmed, so it cannot take the public port the device's own flow needs later).
    static func rules(_ mapping: Mapping, blockingUDPBetweenHomes: Bool) -> String {
        """
        table ip nat {
          chain postrouting {
            type nat hook postrouting priority srcnat; policy accept;
            oifname "wan" masquerade\(mapping == .symmetric ? " fully-random" : "")
          }
        }
        table ip filter {
          chain input {
            type filter hook input priority filter; policy accept;
            iifname "wan" ct state new drop
          }
          chain forward {
            type filter hook forward priority filter; policy accept;
            iifname "wan" ct state new drop
        \(blockingUDPBetweenHomes ? "    oifname \"wan\" ip daddr != \(internetAddress) meta l4proto udp drop\n" : "")  }
        }

        """
    }

    /// Runs each command (a tool on the PATH, then its arguments) in `host`'s network.
    private static func configure(_ host: TestHost, _ commands: [[String]]) throws {
        for command in commands {
            let tool = ["/usr/sbin/ip", "/usr/sbin/sysctl", "/usr/sbin/nft"].first { $0.hasSuffix("/" + command[0]) } ?? command[0]
            try host.run(inNetwork: [tool] + command.dropFirst())
        }
    }

    /// Starts `command` on the internet host (as `TestHost.start`); it ends with the topology,
    /// or earlier with its `terminate()` (SIGTERM to the process group: the command too).
    public func start(inInternet command: [String]) throws -> RunningProcess {
        try internet.start(command)
    }

    /// Shuts every host down (`TestHost.shutDown`) and removes the folder. Afterwards no
    /// process is left in any of the hosts' networks (`leftoverProcesses`).
    public func shutDown() {
        for host in hosts { host.shutDown() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Processes still in any of the hosts' networks (none once shut down).
    public var leftoverProcesses: [Int32] { hosts.flatMap(\.leftoverProcesses) }

    deinit { shutDown() }
}
