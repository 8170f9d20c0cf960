import Crypto
import Foundation

/// The six-digit code both people compare, and the commitment that makes it one guess.
///
/// With `E` the TLS exporter of the pairing connection (RFC 9266 `tls-exporter`, 32 bytes),
/// `S_A` and `S_N` the SHA-256 of the window's and the newcomer's DER SubjectPublicKeyInfo,
/// and `n_A`, `n_N` the window's and the newcomer's 32-byte nonces:
///
///     commitment = SHA-256("baton pair commit v1" ‖ E ‖ n_A)        sent before n_N is
///     code       = be64(HMAC-SHA256(E, "baton pair code v1" ‖ S_A ‖ S_N ‖ n_A ‖ n_N)[0..<8]) mod 10^6
///
/// A machine in the middle has two TLS sessions, two exporters; the commitment keeps it from
/// choosing its last input after seeing the other session's code (docs/PROTOCOL.md, "Pairing").
public struct PairingCode: Sendable, Equatable, CustomStringConvertible {
    /// The six digits, zero-padded.
    public let digits: String

    /// The code of a session (see the type's comment).
    public init(exporter: Data, authorityKey: Data, newcomerKey: Data, authorityNonce: Data, newcomerNonce: Data) {
        var message = Data("baton pair code v1".utf8)
        message.append(Data(SHA256.hash(data: authorityKey)))
        message.append(Data(SHA256.hash(data: newcomerKey)))
        message.append(authorityNonce)
        message.append(newcomerNonce)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: exporter)))
        let value = mac[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        digits = String(format: "%06llu", value % 1_000_000)
    }

    /// The commitment to the window's nonce `nonce` in the session of `exporter`.
    static func commitment(exporter: Data, nonce: Data) -> Data {
        var message = Data("baton pair commit v1".utf8)
        message.append(exporter)
        message.append(nonce)
        return Data(SHA256.hash(data: message))
    }

    /// 32 random bytes (the system's generator).
    static func nonce() -> Data {
        Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    /// True if `typed` is a code at all: exactly six ASCII digits, spaces and dashes aside.
    /// Anything else is a slip of the keyboard, to be asked again, not a code that differs.
    public static func isWellFormed(_ typed: String) -> Bool {
        let scalars = digits(of: typed)
        return scalars.count == 6 && scalars.allSatisfy { ("0"..."9").contains($0) }
    }

    private static func digits(of typed: String) -> [Unicode.Scalar] {
        typed.unicodeScalars.filter { $0 != " " && $0 != "-" && $0 != "\t" }
    }

    /// True if `typed` is this code, spaces and dashes aside; compared in constant time.
    public func matches(typed: String) -> Bool {
        let scalars = Self.digits(of: typed)
        guard scalars.allSatisfy({ ("0"..."9").contains($0) }) else { return false }
        let entered = scalars.map { UInt8($0.value) }
        let expected = Array(digits.utf8)
        guard entered.count == expected.count else { return false }
        return zip(entered, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `123 456`.
    public var description: String { "\(digits.prefix(3)) \(digits.suffix(3))" }
}
