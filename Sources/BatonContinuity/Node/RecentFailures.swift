import Foundation

/// The latest failures of a node (a device it could not reach, a connection it refused, a link
/// lost), newest last, at most `capacity`: older ones are forgotten, so a flood costs nothing.
public struct RecentFailures: Sendable, Equatable {
    /// How many are kept.
    public static let capacity = 10
    /// One failure: when, and what in words (remote text escaped).
    public struct Failure: Sendable, Equatable, Codable {
        /// When it happened.
        public var time: Date
        /// What happened.
        public var text: String
    }
    /// The failures kept, oldest first.
    public private(set) var failures: [Failure] = []

    /// None yet.
    public init() {}

    mutating func add(_ text: String) {
        if failures.count == Self.capacity { failures.removeFirst() }
        failures.append(Failure(time: Date(), text: PrintableText.escaped(text)))
    }
}
