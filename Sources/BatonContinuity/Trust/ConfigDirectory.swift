import Baton
import Foundation

/// Where Baton keeps identities: `$XDG_CONFIG_HOME/baton`, else `~/.config/baton`.
///
///     group/authority.pem        the group's CA certificate      (on the machine that administers)
///     group/authority-key.pem    its private key, mode 0600
///     group/roster               the devices issued, and which are revoked
///     group/revocations          the CA-signed revocation list
///     device/certificate.pem     this device's certificate, signed by the group
///     device/key.pem             its private key, mode 0600
///     device/group.pem           the group's CA certificate: the trust anchor
///     device/revocations         the latest revocation list this device holds
///     device/discovery.key       the group's discovery secret (blinds DNS-SD tokens), 0600
public struct ConfigDirectory: Sendable, Equatable {
    public let url: URL

    public init(url: URL) { self.url = url }

    /// The directory for this user, from the environment.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigDirectory {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return ConfigDirectory(url: base.appendingPathComponent("baton"))
    }

    public var groupDirectory: URL { url.appendingPathComponent("group") }
    public var deviceDirectory: URL { url.appendingPathComponent("device") }
}

/// Reading and writing the files of an identity, with the permissions private keys need.
enum SecureFiles {
    /// Writes `data` to `url` with `mode`, creating the folder (0700) first.
    static func write(_ data: Data, to url: URL, mode: UInt16) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = url.appendingPathExtension("tmp-\(getpid())")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data,
                                             attributes: [.posixPermissions: NSNumber(value: mode)]) else {
            throw TrustError.unreadable(path: temporary.path, reason: "cannot create it")
        }
        chmod(temporary.path, mode_t(mode))  // whatever the umask made of it
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw TrustError.unreadable(path: url.path, reason: "cannot write it: \(reason)")
        }
    }

    static func read(_ url: URL) throws -> Data {
        guard FileManager.default.fileExists(atPath: url.path) else { throw TrustError.missingFile(path: url.path) }
        do { return try FileContents.read(url) } catch {
            throw TrustError.unreadable(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Reads a private key file, refusing one that group or others may read or write.
    static func readPrivate(_ url: URL) throws -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw TrustError.missingFile(path: url.path) }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw TrustError.keyFileTooOpen(path: url.path, mode: mode) }
        return try read(url)
    }
}
