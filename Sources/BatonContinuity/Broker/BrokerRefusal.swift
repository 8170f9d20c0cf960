import Foundation

/// Why a message that came through the broker was refused, before its blob reached
/// `BrokerSignalling.onReceive`. Each is published as `BrokerEvent.refused`; the checks run in
/// the order of the cases (size first, before anything is decoded).
public enum BrokerRefusal: Error, Sendable, Equatable {
    /// It came on a topic this device did not subscribe to (not one of its inboxes).
    case unknownTopic
    /// It is larger than the cap (`BrokerSignallingSettings.messageLimit`): refused unread.
    case tooLarge(size: Int, limit: Int)
    /// It does not open with the group's sealing key for its topic: not sealed by a device of
    /// the group (the broker, or anyone else, made or changed it).
    case unsealed
    /// It opened but its content is not a well-formed envelope (`problem` says what).
    case malformed(problem: String)
    /// Its signature does not verify with the certificate it carries.
    case badSignature
    /// It is addressed to another device than this one.
    case wrongRecipient
    /// The certificate it carries is not a current device of this group (the same decision as
    /// a TLS link's: `DeviceIdentity.verifyPeer`).
    case untrustedSender(TrustError)
    /// It claims a sender other than the device whose certificate signed it.
    case senderMismatch
    /// Its timestamp is further than the clock tolerance from this device's clock.
    case stale
    /// It was seen before (its nonce), or is older than what the replay memory still covers.
    case replayed
}
