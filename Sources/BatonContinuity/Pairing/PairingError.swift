import BatonLoop

/// Why a pairing did not come about. Each case says why in its description; remote text in it
/// is shown escaped (`PrintableText`).
public enum PairingError: Error, Sendable, CustomStringConvertible {
    /// The TLS stack cannot export keying material (`G_TLS_CHANNEL_BINDING_TLS_EXPORTER`),
    /// which the code is derived from: pairing needs glib-networking 2.74 or later.
    case exporterUnavailable(GLibError)
    /// The TCP connection could not be made, or broke.
    case connectionFailed(GLibError)
    /// The TLS handshake failed (or its peer sent no usable certificate).
    case handshakeFailed(String)
    /// The peer did not negotiate TLS 1.3 with ALPN `baton-pair/1`.
    case wrongProtocol(String)
    /// A frame announced more bytes than a message of that step may hold.
    case frameTooLarge(step: String, size: Int, limit: Int)
    /// A message that is not what the protocol says comes at that step.
    case malformedMessage(step: String)
    /// The other device hung up at that step.
    case closed(step: String)
    /// Nothing came at that step within the time.
    case timedOut(step: String, Duration)
    /// The pairing window refused this device before any code (busy, closing, both typing, another version).
    case refused(PairingRefusal, reason: String)
    /// The window's revealed nonce is not the one it committed to: someone in the middle, or
    /// a broken peer. Nothing was trusted.
    case commitmentMismatch
    /// The person on this device said no, or typed another code (or answered nothing).
    case declinedHere
    /// The other device said no (or its person typed another code).
    case declinedThere(reason: String)
    /// What the authority granted was refused here; nothing was written.
    case grantRefused(TrustError)
    /// The authority could not issue the device (`reason`); nothing was issued, and the new
    /// device was told so in fixed words (never `reason`, which may name local files).
    case cannotIssue(reason: String)
    /// The device `name` was issued (it is in the group's roster), but the new device did not
    /// confirm it saved its identity (`reason`: it could not, or the grant or its answer was
    /// lost). Check the new device before revoking it.
    case notSaved(name: String, reason: String)
    /// The pairing window closed: its time was up, or its attempts were used.
    case windowClosed(String)
    /// No pairing window could be looked for through DNS-SD (`reason`).
    case notFound(String)

    /// True for `notSaved`: a device was issued.
    var isNotSaved: Bool { if case .notSaved = self { true } else { false } }

    /// What went wrong, in words, with remote text escaped.
    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .exporterUnavailable(let error):
            "pairing needs glib-networking 2.74 or later (TLS exporter channel binding): \(error.message)"
        case .connectionFailed(let error): "connection failed: \(error.message)"
        case .handshakeFailed(let reason): "TLS handshake failed: \(shown(reason))"
        case .wrongProtocol(let reason): "the other side does not speak \(PairingChannel.alpn) over TLS 1.3: \(reason)"
        case .frameTooLarge(let step, let size, let limit): "the other side sent a \(step) of \(size) bytes (at most \(limit))"
        case .malformedMessage(let step): "the other side sent something that is not a \(step)"
        case .closed(let step): "the other device hung up (waiting for its \(step))"
        case .timedOut(let step, let duration): "no \(step) from the other device within \(duration)"
        case .refused(let refusal, let reason): "the other device refused: \(refusal)\(reason.isEmpty ? "" : " (\(shown(reason)))")"
        case .commitmentMismatch: "the other device's nonce does not match its commitment: someone may be in the middle; nothing was trusted"
        case .declinedHere: "not confirmed here: nothing was written"
        case .declinedThere(let reason): "the other device did not confirm\(reason.isEmpty ? "" : " (\(shown(reason)))"): nothing was written"
        case .grantRefused(let error): "\(error)"
        case .cannotIssue(let reason): "the device could not be issued: \(shown(reason))"
        case .notSaved(let name, let reason):
            "device '\(shown(name))' was issued by the group, but its identity was not saved on the new device, or that was not "
                + "confirmed (\(reason)); it is in "
                + "the group's roster: check `baton identity` on the new device and `baton device list` before removing it with "
                + "`baton device revoke \(shown(name))`"
        case .windowClosed(let reason): "the pairing window closed: \(reason)"
        case .notFound(let reason): "cannot look for a pairing window: \(reason); give its HOST:PORT"
        }
    }
}

/// Why a pairing window refuses a newcomer at its first answer.
public enum PairingRefusal: UInt32, Sendable, CustomStringConvertible {
    /// Not refused: the pairing goes on.
    case none = 0
    /// The window is pairing another device now.
    case busy = 1
    /// The name asked for is taken or not acceptable. (Not sent by this version, whose hello
    /// carries no name: a name is refused in the grant, after both yeses.)
    case nameRefused = 2
    /// The window is closing.
    case closing = 3
    /// Both sides want to type the other's code: one of them must show its code.
    case bothTyping = 4
    /// The newcomer speaks another protocol version.
    case version = 5

    /// The refusal in words.
    public var description: String {
        switch self {
        case .none: "not refused"
        case .busy: "it is pairing another device now; try again when it is done"
        case .nameRefused: "that name cannot be given"
        case .closing: "its pairing window is closing"
        case .bothTyping: "both sides want to type the code: run one of them without --code"
        case .version: "another version of the pairing protocol"
        }
    }
}
