@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Crypto
import Foundation
import X509
import XCTest

/// Issue 9, "Trust": a certificate the group CA signed is a device only if it carries exactly
/// the device profile (KU digitalSignature, EKU serverAuth + clientAuth, CA:FALSE). Each defect
/// below was accepted before; each is refused by `verifyPeer` and in a real TLS handshake.
final class DeviceCertificateProfileTests: TrustTestCase {
    /// Each defective profile, by what is wrong with it.
    static let defects: [(String, @Sendable () throws -> Certificate.Extensions)] = [
        ("no extendedKeyUsage", {
            try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            }
        }),
        ("no keyUsage", {
            try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            }
        }),
        ("keyUsage keyCertSign only", {
            try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            }
        }),
        ("basicConstraints CA:TRUE", {
            try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            }
        }),
        ("no extensions at all", { Certificate.Extensions() }),
        ("extendedKeyUsage with codeSigning too", {
            try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth, .codeSigning])
            }
        }),
    ]

    func testTheIssuedProfileIsADevice() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop")
        XCTAssertNil(DeviceIdentity.deviceProfileDefect(of: try authority.issueDevice(named: "phone").certificate))
        let tablet = try authority.issueDevice(named: "tablet")
        XCTAssertEqual(try laptop.verifyPeer(tablet.certificate), tablet.identifier)
    }

    func testEachDefectiveProfileIsRefusedByTheVerifier() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop")
        for (defect, extensions) in Self.defects {
            let rogue = try identity("rogue", extensions: try extensions(), authority: authority)
            XCTAssertThrowsError(try laptop.verifyPeer(rogue.certificate), defect) {
                guard case .peerNotInGroup(let reason)? = $0 as? TrustError else { return XCTFail("\(defect): \($0)") }
                XCTAssertTrue(reason.contains("not a device certificate"), "\(defect): \(reason)")
            }
        }
    }

    /// Over real TLS, both ways: a rogue client is refused by a device's listener, and a rogue
    /// listener is refused by a dialing device.
    func testEachDefectiveProfileIsRefusedInARealHandshake() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop")
        let rogues = try Self.defects.map { ($0.0, try identity("rogue", extensions: try $0.1(), authority: authority)) }
        try MainActor.assumeIsolated {
            let laptopCredential = try TLSCredential(identity: laptop)
            for (defect, rogue) in rogues {
                let rogueCredential = try TLSCredential(identity: rogue)

                let listener = try SecureListener(identity: laptop, credential: laptopCredential)
                let server = Outcome { try await listener.accept() }
                let client = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port,
                                                                       identity: rogue, credential: rogueCredential) }
                spin(until: { server.done })
                guard case .peerRejected(.peerNotInGroup(let reason))? = server.error as? TransportError else {
                    XCTFail("\(defect): the listener took the rogue client: \(String(describing: server.error))")
                    continue
                }
                XCTAssertTrue(reason.contains("not a device certificate"), "\(defect): \(reason)")
                spin(until: { client.done })
                try? client.get().close()
                listener.close()

                let rogueListener = try SecureListener(identity: rogue, credential: rogueCredential)
                let rogueServer = Outcome { try await rogueListener.accept() }
                let dial = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: rogueListener.port,
                                                                     identity: laptop, credential: laptopCredential) }
                spin(until: { dial.done && rogueServer.done })
                // Refused by the dialing device's verifier — or, for a key GnuTLS may not sign
                // with (keyCertSign only), by the rogue's own TLS stack first. Never a channel.
                switch dial.error as? TransportError {
                case .peerRejected(.peerNotInGroup)?: break
                case .handshakeFailed? where defect == "keyUsage keyCertSign only": break
                default: XCTFail("\(defect): the device dialed the rogue listener: \(String(describing: dial.value))")
                }
                rogueListener.close()
            }
        }
    }
}
