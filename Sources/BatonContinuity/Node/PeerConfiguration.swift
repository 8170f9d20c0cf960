import Foundation

/// Where a device listens and which peers it dials, read the one way the `baton` command and
/// apps share: the configured peers (`$BATON_PEERS`, else the `peers` file), then each
/// `--peer HOST:PORT`, and `--listen [HOST:]PORT`. A bad value anywhere is an error that
/// names it; none is skipped.
public struct PeerConfiguration: Sendable, Equatable {
    /// Where to listen: every interface, any free port (`PeerAddress.network`) unless given.
    public var listen: PeerAddress
    /// The peers to dial: the configured ones, then the given ones, each once.
    public var peers: [PeerAddress]

    /// A configuration given in code: where to listen and which peers to dial.
    public init(listen: PeerAddress = .network, peers: [PeerAddress] = []) {
        self.listen = listen
        self.peers = peers
    }

    /// Reads the configured peers from `directory` and `environment`
    /// (`PeerAddress.configured(in:environment:)`), adds `peerArguments` (values of
    /// `--peer`) and parses `listenArgument` (the value of `--listen`: `PORT`, `HOST:PORT`
    /// or `[v6]:PORT`, port 0 for any free one; a bare `PORT` is on every interface).
    public static func read(directory: ConfigDirectory = .standard(),
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            peerArguments: [String] = [], listenArgument: String? = nil) throws(PeerAddressError) -> PeerConfiguration {
        var configuration = PeerConfiguration()
        if let listenArgument {
            configuration.listen = try PeerAddress(parsing: listenArgument, from: .argument("listen"), portZeroAllowed: true,
                                                   defaultHost: PeerAddress.allInterfaces)
        }
        var peers = try PeerAddress.configured(in: directory, environment: environment)
        for argument in peerArguments { peers.append(try PeerAddress(parsing: argument, from: .argument("peer"))) }
        var seen = Set<PeerAddress>()
        configuration.peers = peers.filter { seen.insert($0).inserted }
        return configuration
    }
}
