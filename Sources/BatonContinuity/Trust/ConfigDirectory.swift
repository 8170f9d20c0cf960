import Baton
import Foundation

/// Where Baton keeps identities: `$XDG_CONFIG_HOME/baton`, else `~/.config/baton`.
///
///     group/authority.pem        the group's CA certificate      (on the machine that administers)
///     group/authority-key.pem    its private key, mode 0600
///     group/roster               the devices issued, and which are revoked
///     group/revocations          the CA-signed revocation list
///     group/discovery.key        the discovery key of the latest revocation, 0600
///     device/certificate.pem     this device's certificate, signed by the group
///     device/key.pem             its private key, mode 0600
///     device/group.pem           the group's CA certificate: the trust anchor
///     device/revocations         the latest revocation list this device holds
///     device/discovery.key       the group's discovery secret (blinds DNS-SD tokens), 0600
///     peers                      static peers, HOST:PORT a line (`PeerAddress.configured`)
public struct ConfigDirectory: Sendable, Equatable {
    /// The folder itself (`$XDG_CONFIG_HOME/baton` for the standard one).
    public let url: URL

    /// The configuration folder at `url`; nothing is read or created until it is used.
    public init(url: URL) { self.url = url }

    /// The directory for this user, from the environment.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigDirectory {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return ConfigDirectory(url: base.appendingPathComponent("baton"))
    }

    /// `group/`: the group's authority, on the machine that administers the group.
    public var groupDirectory: URL { url.appendingPathComponent("group") }
    /// `device/`: this device's identity.
    public var deviceDirectory: URL { url.appendingPathComponent("device") }
}
