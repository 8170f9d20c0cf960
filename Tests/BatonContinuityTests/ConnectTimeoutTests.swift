@testable import BatonContinuity
import BatonLoop
import CGLib
import BatonTestSupport
import Foundation
import XCTest

/// A dial to a port that never answers the connection (a firewall that drops it; here, a
/// listener whose accept queue is full, so the kernel drops the SYNs) ends at
/// `SecureChannel.connectTimeout`, not after the kernel's two minutes of retries.
final class ConnectTimeoutTests: TrustTestCase {
    func testADialToAPortThatDropsTheConnectionEndsAtTheConnectTimeout() throws {
        let phone = try GroupAuthority.create(name: "Ada", in: config("admin")).issueDevice(named: "phone")
        let (listening, port) = try loopbackListeningSocket(backlog: 0)
        defer { close(listening) }
        // Fill the accept queue (nobody accepts): from then on the kernel drops new SYNs.
        var fillers: [Int32] = []
        defer { for fd in fillers { close(fd) } }
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            fillers.append(fd)
        }
        try MainActor.assumeIsolated {
            let credential = try TLSCredential(identity: phone)
            let waited = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: port, identity: phone, credential: credential) }
            spin(until: { waited.done })  // bounded at 20 s: the kernel alone would retry for about two minutes
            guard case .connectionFailed(let failure)? = waited.error as? TransportError else { return XCTFail("\(String(describing: waited.error))") }
            XCTAssertEqual(failure.domain, "g-io-error-quark")
            XCTAssertEqual(failure.code, Int32(G_IO_ERROR_TIMED_OUT.rawValue), "no answer, not a refusal: \(failure)")
        }
    }
}
