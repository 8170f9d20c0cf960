import BatonLoop

extension ContinuityNode {
    /// How long a stopping device waits, by default, for its close_notify to be written to
    /// every peer before it closes their connections anyway.
    public static let goodbyeDeadline: Duration = .milliseconds(100)

    /// Closes every link the way a device that stops does: each peer is sent TLS close_notify
    /// and reads the end of its link at once (it drops the link as closed, not broken), and
    /// this returns once every close_notify is written or `deadline` has passed — a peer that
    /// does not read cannot hold the stop up. No unlinked event is published here, and the
    /// links are not dialed again; call `stop()` next.
    public func closeLinks(within deadline: Duration = ContinuityNode.goodbyeDeadline) async {
        await links.closeAllSayingGoodbye(within: deadline)
    }
}
