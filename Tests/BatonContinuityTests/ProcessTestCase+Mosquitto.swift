@testable import BatonContinuity
import BatonTestSupport
import Foundation

extension ProcessTestCase {
    /// mosquitto (Debian's `mosquitto`).
    static let mosquittoServer = URL(fileURLWithPath: "/usr/sbin/mosquitto")

    /// A real mosquitto on the `baton.conf` that `baton relay server-config` wrote in `folder`:
    /// its certificate folder replaced by `folder`, its listener on `port` bound to 127.0.0.1,
    /// run as root (the tests' user); nothing else changed. Ended with the test (or `stop` it
    /// sooner). Returns once it runs.
    func startMosquitto(configuredIn folder: URL, port: UInt16) throws -> RunningProcess {
        let text = try String(contentsOf: folder.appendingPathComponent("baton.conf"), encoding: .utf8)
            .replacingOccurrences(of: RelayServerConfig.mosquittoCertificateFolder, with: folder.path)
            .replacingOccurrences(of: "listener \(port)\n", with: "listener \(port) 127.0.0.1\n") + "user root\n"
        let conf = folder.appendingPathComponent("test-mosquitto.conf")
        try Data(text.utf8).write(to: conf)
        let broker = try RunningProcess(executable: Self.mosquittoServer, ["-c", conf.path, "-v"])
        processes.append(broker)
        guard broker.waitForLine(containing: " running", timeout: 60) != nil else {
            throw TestHost.HostError.failed("mosquitto did not start on 127.0.0.1:\(port):\n\(broker.output)")
        }
        return broker
    }

    /// What the broker at 127.0.0.1:`port` answers an MQTT CONNECT then DISCONNECT over TLS 1.3
    /// from the identity in `folder` (its `certificate.pem` and `key.pem`; nil: no certificate),
    /// trusting `ca` for the broker's, as hex bytes (CONNACK accepted: `20 02 00 00`; refused in
    /// the handshake: nothing).
    func mqttConnect(port: UInt16, ca: URL, from folder: URL?) throws -> String {
        var client = "openssl s_client -connect 127.0.0.1:\(port) -tls1_3 -CAfile '\(ca.path)' -verify_return_error -verify_ip 127.0.0.1 -quiet -ign_eof"
        if let folder {
            client += " -cert '\(folder.appendingPathComponent("certificate.pem").path)' -key '\(folder.appendingPathComponent("key.pem").path)'"
        }
        let script = "printf '\\020\\014\\000\\004MQTT\\004\\002\\000\\074\\000\\000\\340\\000' | \(client) 2>/dev/null | od -An -tx1"
        let run = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], timeout: 30)
        return run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
