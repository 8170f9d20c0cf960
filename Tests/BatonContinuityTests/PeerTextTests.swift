@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import X509
import XCTest

/// Issue 9, "Privacy": raw peer bytes must not reach log lines. A device whose certificate
/// names it with a terminal escape and a right-to-left override (a name `baton device add`
/// refuses, but a certificate is the peer's to present) links to a real device process, whose
/// log shows the name escaped and never the raw control characters.
final class PeerTextTests: TrustTestCase {
    func testAPeersNameReachesTheLogEscaped() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let honest = root.appendingPathComponent("honest"), hostile = root.appendingPathComponent("hostile")
        try authority.issueDevice(named: "honest").write(to: honest)
        let name = "evil\u{1B}[2J\u{202E}gpj.exe"
        let profile = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth, .clientAuth])
        }
        try identity(name, extensions: profile, authority: authority).write(to: hostile)

        let a = try RunningProcess(product: "DeviceProbe", [honest.path, "--ok"])
        defer { a.terminate() }
        let listening = try XCTUnwrap(a.listeningAddress(), a.output).description
        let b = try RunningProcess(product: "DeviceProbe", [hostile.path, "--ok", "--peer", listening])
        defer { b.terminate() }
        let linked = try XCTUnwrap(a.waitForLine(containing: "linked with evil"), a.output)
        XCTAssertTrue(linked.contains(#"evil\u{1B}[2J\u{202E}gpj.exe"#), linked)
        // The name apps are given (`NearbyActivity.device`, which the probe prints as it is) is
        // escaped too: the certificate's name is not one that could have been issued.
        let nearby = try XCTUnwrap(a.waitForLine(containing: "nearby evil"), a.output)
        XCTAssertTrue(nearby.contains(#"evil\u{1B}[2J\u{202E}gpj.exe"#), nearby)
        XCTAssertFalse(a.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E },
                       "a raw escape or override reached the log")
    }
}
