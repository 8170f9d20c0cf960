import Foundation

/// What `BrokerSignalling` tells of its connection and of the messages it refused, as values
/// (`BrokerSignalling.onEvent`); the lead's node maps them to its diagnostics.
public enum BrokerEvent: Sendable, Equatable {
    /// Connected to the broker and subscribed to this device's inboxes: `send` works from now on.
    case connected
    /// An attempt to connect failed with `error`; the next starts after `retryIn`.
    case connectFailed(BrokerError, retryIn: Duration)
    /// The connection was lost with `error`; the next attempt starts after `retryIn`.
    case disconnected(BrokerError, retryIn: Duration)
    /// A message that came through the broker was refused.
    case refused(BrokerRefusal)
}
