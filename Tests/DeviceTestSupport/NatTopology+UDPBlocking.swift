import BatonTestSupport
import Foundation

extension NatTopology {
    /// Makes both homes' routers drop every UDP packet their devices send out (to the
    /// internet host too), as a network that lets only TCP out does: STUN, TURN over UDP and
    /// ICE's checks between the homes go nowhere; TCP (TURN over TCP, the broker) still gets
    /// through. Adds one rule to each router's `forward` chain (`NatTopology.rules`).
    public func blockUDPToTheInternet() throws {
        for home in homes {
            try home.router.run(inNetwork: ["/usr/sbin/nft", "add", "rule", "ip", "filter", "forward",
                                            "oifname", "wan", "meta", "l4proto", "udp", "drop"])
        }
    }
}
