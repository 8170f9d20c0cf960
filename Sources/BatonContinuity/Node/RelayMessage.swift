import BatonLoop
import Foundation

/// What one device's `RelayConnector` sends another's through the broker (the blob
/// `BrokerSignalling` seals and signs; docs/PROTOCOL.md, 7.4): an offer, the answer to it, or
/// a refusal of it, each naming its attempt.
///
/// On the wire: a GVariant `(uutay)` in normal form — version 1, the kind (1 offer, 2 answer,
/// 3 decline), the attempt's random identifier, and the encoded `IceDescription` (empty for a
/// decline). A message is hostile: its size is checked before it is parsed, and the
/// description is checked (`IceDescription.decode(_:)`) before anything uses it.
struct RelayMessage: Sendable, Equatable {
    /// What the message is.
    enum Kind: UInt32, Sendable {
        /// The offering (controlling) side's description.
        case offer = 1
        /// The answering (controlled) side's description, for the offer of the same attempt.
        case answer = 2
        /// The answering side will not take the offer of this attempt (it is linked on the LAN
        /// with the offering device, or has as many attempts as it takes).
        case decline = 3
    }

    let kind: Kind
    /// Chosen at random by the offering side; the answer and a decline repeat it.
    let attempt: UInt64
    /// The sender's description; nil in a decline.
    let description: IceDescription?

    static let version: UInt32 = 1
    static let wireType = "(uutay)"
    /// At most this many bytes in an encoded message, checked before it is parsed.
    static let maximumEncodedSize = IceDescription.maximumEncodedSize + 64

    /// The message as it travels.
    func encoded() -> Data {
        let value = Variant.tuple([.uint32(Self.version), .uint32(kind.rawValue), .uint64(attempt),
                                   .bytes(description?.encoded() ?? Data())])
        return (try? value.serialized()) ?? Data()
    }

    /// A message from the network: its size, its form, its kind, and its description (an
    /// offer and an answer must carry a valid one, a decline none). Throws
    /// `IceError.descriptionTooLarge` or `.invalidDescription`.
    static func decode(_ data: Data) throws(IceError) -> RelayMessage {
        guard data.count <= maximumEncodedSize else { throw .descriptionTooLarge(data.count) }
        guard let value = try? Variant(serialized: data, type: wireType), case .tuple(let items) = value, items.count == 4,
              case .uint32(let version) = items[0], case .uint32(let kindValue) = items[1],
              case .uint64(let attempt) = items[2], case .bytes(let bytes) = items[3] else {
            throw .invalidDescription("it is not an encoded relay message")
        }
        guard version == Self.version else { throw .invalidDescription("its version is \(version), not \(Self.version)") }
        guard let kind = Kind(rawValue: kindValue) else { throw .invalidDescription("its kind \(kindValue) is unknown") }
        if kind == .decline {
            guard bytes.isEmpty else { throw .invalidDescription("a decline carries a description") }
            return RelayMessage(kind: kind, attempt: attempt, description: nil)
        }
        return RelayMessage(kind: kind, attempt: attempt, description: try IceDescription.decode(bytes))
    }
}
