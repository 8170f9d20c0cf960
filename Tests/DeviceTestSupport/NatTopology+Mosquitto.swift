import BatonContinuity
import BatonTestSupport
import Foundation

extension NatTopology {
    /// mosquitto on the internet host from `baton relay server-config`'s `baton.conf` in
    /// `servers` (`startMosquitto(from:certificateFolder:)` with `RelayServerConfig`'s folder);
    /// returns once it runs (within 60 s).
    @discardableResult
    public func startMosquitto(from servers: URL) throws -> RunningProcess {
        try startMosquitto(from: servers, certificateFolder: RelayServerConfig.mosquittoCertificateFolder)
    }
}
