import BatonContinuity
import Foundation

/// What `baton device revoke` prints when the group has relay settings (issue 29): what to
/// copy to the broker and the TURN server so they stop serving the revoked device too.
enum RevocationAtServers {
    /// The steps for the servers of `settings` (as the new list carries them) after a
    /// revocation: the broker needs the group's new CRL, `crl`; each TURN server the new shared
    /// secret (`rotated`: the list carries one), which is never printed.
    static func printSteps(for settings: RelaySettings, crl: URL, rotated: Bool) {
        print("the group has relay settings: close its servers to the revoked device too")
        if let broker = settings.broker {
            let host = broker.host, scpHost = scpForm(host)
            print("broker \(broker.uri): it refuses the device's certificate once it holds the group's new CRL (\(shown(crl.path))):")
            print("  scp -p \(shown(crl.path)) root@\(scpHost):\(RelayServerConfig.mosquittoCertificateFolder)/\(RelayServerConfig.crlFileName)")
            print("  ssh root@\(host) 'systemctl restart mosquitto'")
            print("  (a broker set up before Baton wrote CRLs needs all of a new `baton relay server-config`'s mosquitto files)")
        }
        let turnHosts = settings.turn.map(\.host).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard rotated, !turnHosts.isEmpty else { return }
        print("TURN: the shared secret was replaced (relay settings \(settings.version)): the revoked device knew the old one.")
        print("  your devices get the new one with the list; until each TURN server has it, it refuses their relayed paths")
        print("  (the LAN and direct paths keep working). On each TURN server, change coturn's line")
        print("    static-auth-secret=… in /etc/turnserver.conf")
        print("  to the new secret (never printed; it is in the turnserver.conf this writes):")
        for host in turnHosts {
            let choice = turnHosts.count > 1 ? " --turn-host \(scpForm(host))" : ""
            print("  baton relay server-config --out baton-relay-server\(choice)")
            print("  scp baton-relay-server/turnserver.conf root@\(scpForm(host)):/etc/turnserver.conf")
            print("  ssh root@\(host) 'chown root:turnserver /etc/turnserver.conf && chmod 640 /etc/turnserver.conf && systemctl restart coturn'")
        }
    }

    /// `host` (a DNS name or an IP address: `RelaySettings.validate()`) as `scp` reads it: an
    /// IPv6 address in brackets (`relay server-config` prints its copies with it too).
    static func scpForm(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
