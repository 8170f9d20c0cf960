import BatonLoop
import Foundation

/// The messages of a pairing, in their order (N the newcomer, TLS client; A the window):
///
///     1 N→A hello    (ub)    version 1, whether N will type A's code
///     2 A→N commit   (uaysb) refusal (0: go on), SHA-256 commitment to A's nonce, reason,
///                            whether A will type N's code
///     3 N→A nonce    (ay)    N's 32-byte nonce
///     4 A→N reveal   (ay)    A's 32-byte nonce
///     5 N→A verdict  (bs)    N's person confirmed; the name asked for (only after that yes)
///     6 A→N grant    (bays)  A's person confirmed too: the serialised `DeviceGrant`; or a refusal, reason
///     7 N→A saved    (bs)    N wrote its identity; or why not
///
/// Each travels as a frame: a 4-byte big-endian length, then the GVariant normal form of that
/// step's type. The length is checked against the step's cap before any byte of the body is
/// read; a body not in normal form or not of the step's type ends the pairing.
enum PairingMessage: Equatable {
    case hello(version: UInt32, typing: Bool)
    case commit(refusal: PairingRefusal, commitment: Data, reason: String, typing: Bool)
    case nonce(Data)
    case reveal(Data)
    case verdict(Bool, name: String)
    case grant(ok: Bool, grant: Data, reason: String)
    case saved(ok: Bool, reason: String)

    /// The protocol version this build speaks.
    static let version: UInt32 = 1
    /// The largest frame body of every step but the grant.
    static let maximumSize = 4096
    /// The largest grant frame body (a list naming thousands of devices stays well under it).
    static let maximumGrantSize = 256 * 1024
    /// The longest reason or name kept from a message, in characters.
    static let maximumText = 200

    /// The steps, to read one and to name it in errors.
    enum Step: String {
        case hello, commit, nonce, reveal, verdict, grant, saved

        var type: String {
            switch self {
            case .hello: "(ub)"
            case .commit: "(uaysb)"
            case .nonce, .reveal: "(ay)"
            case .verdict: "(bs)"
            case .grant: "(bays)"
            case .saved: "(bs)"
            }
        }

        var limit: Int { self == .grant ? PairingMessage.maximumGrantSize : PairingMessage.maximumSize }
    }

    var variant: Variant {
        switch self {
        case .hello(let version, let typing): .tuple([.uint32(version), .bool(typing)])
        case .commit(let refusal, let commitment, let reason, let typing):
            .tuple([.uint32(refusal.rawValue), .bytes(commitment), .string(reason), .bool(typing)])
        case .nonce(let bytes), .reveal(let bytes): .tuple([.bytes(bytes)])
        case .verdict(let yes, let name): .tuple([.bool(yes), .string(name)])
        case .grant(let ok, let grant, let reason): .tuple([.bool(ok), .bytes(grant), .string(reason)])
        case .saved(let ok, let reason): .tuple([.bool(ok), .string(reason)])
        }
    }

    /// The frame: length and body.
    func frame() throws(PairingError) -> Data {
        let body: Data
        do { body = try variant.serialized() } catch { throw .malformedMessage(step: "own message (\(error))") }
        var frame = Data()
        withUnsafeBytes(of: UInt32(body.count).bigEndian) { frame.append(contentsOf: $0) }
        frame.append(body)
        return frame
    }

    /// Decodes the body of a frame of `step` from untrusted bytes.
    init(step: Step, body: Data) throws(PairingError) {
        guard let variant = try? Variant(serialized: body, type: step.type), case .tuple(let f) = variant else {
            throw .malformedMessage(step: step.rawValue)
        }
        let nonceSize = 32
        switch (step, f.count) {
        case (.hello, 2):
            guard case .uint32(let version) = f[0], case .bool(let typing) = f[1] else { break }
            self = .hello(version: version, typing: typing)
            return
        case (.commit, 4):
            guard case .uint32(let code) = f[0], let refusal = PairingRefusal(rawValue: code), case .bytes(let commitment) = f[1],
                  case .string(let reason) = f[2], case .bool(let typing) = f[3],
                  refusal != .none || commitment.count == nonceSize else { break }
            self = .commit(refusal: refusal, commitment: commitment, reason: String(reason.prefix(Self.maximumText)), typing: typing)
            return
        case (.nonce, 1), (.reveal, 1):
            guard case .bytes(let bytes) = f[0], bytes.count == nonceSize else { break }
            self = step == .nonce ? .nonce(bytes) : .reveal(bytes)
            return
        case (.verdict, 2):
            guard case .bool(let yes) = f[0], case .string(let name) = f[1], name.count <= Self.maximumText else { break }
            self = .verdict(yes, name: name)
            return
        case (.grant, 3):
            guard case .bool(let ok) = f[0], case .bytes(let grant) = f[1], case .string(let reason) = f[2] else { break }
            self = .grant(ok: ok, grant: grant, reason: String(reason.prefix(Self.maximumText)))
            return
        case (.saved, 2):
            guard case .bool(let ok) = f[0], case .string(let reason) = f[1] else { break }
            self = .saved(ok: ok, reason: String(reason.prefix(Self.maximumText)))
            return
        default: break
        }
        throw .malformedMessage(step: step.rawValue)
    }
}
