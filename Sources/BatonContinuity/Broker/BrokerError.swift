import Foundation

/// Why signalling through the broker could not connect, stay connected, or send.
public enum BrokerError: Error, Sendable, Equatable {
    /// This device's identity has no discovery key, from which topics and sealing keys derive
    /// (an identity issued before discovery existed).
    case noGroupKey
    /// `send` was called while not connected to the broker.
    case notConnected
    /// The sealed message would be larger than `BrokerSignallingSettings.messageLimit`.
    case tooLarge(size: Int, limit: Int)
    /// No connection, with its subscriptions, within `BrokerSignallingSettings.connectTimeout`.
    case timedOut
    /// The broker's host could not be resolved or reached (`reason`, from the system).
    case unreachable(reason: String)
    /// The TLS handshake failed, or the broker closed the connection before it answered the
    /// MQTT CONNECT: the broker's certificate was not taken, or the broker did not take this
    /// device's (a stranger's or a revoked certificate; with TLS 1.3 the broker says so by
    /// closing, after the client's side of the handshake is done).
    case tls
    /// The broker answered the connection with MQTT reason code `code` (not authorised, say).
    case refusedByBroker(code: Int)
    /// The broker refused a subscription to an inbox.
    case subscriptionRefused
    /// The connection was lost (the broker closed it, or stopped answering keep-alives).
    case connectionLost
    /// libmosquitto failed with `code` (`mosquitto_strerror`: `message`).
    case library(code: Int, message: String)
}
