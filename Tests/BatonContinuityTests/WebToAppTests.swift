@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Crypto
import Foundation
import SwiftASN1
import X509
import XCTest

/// handoff-programming-guide, "Web Browser-to-Native App Handoff": a browsing activity
/// (`UserActivity.browsingWebType`) continues in an app that claims the page's domain, with
/// `webpageURL` and an empty `userInfo`, and only if the domain's associated-domain file lists
/// the app. The file is served over real HTTPS (`openssl s_server -WWW`) with a test CA; the
/// browser is a real device process (`DeviceProbe --browsing`).
final class WebToAppTests: TrustTestCase {
    nonisolated(unsafe) private var server: RunningProcess?
    nonisolated(unsafe) private var probe: RunningProcess?
    nonisolated(unsafe) private var node: ContinuityNode?
    private var port: UInt16 = 0
    private var caFile: URL!

    override func tearDownWithError() throws {
        let node = self.node
        MainActor.assumeIsolated { node?.stop() }
        probe?.terminate()
        server?.terminate()
        try super.tearDownWithError()
    }

    /// A test CA and a certificate for localhost signed by it; the site's file lists `apps`.
    private func serveSite(listing apps: [String]) throws {
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: ["activitycontinuation": ["apps": apps]])
            .write(to: site.appendingPathComponent(".well-known/apple-app-site-association"))
        let caKey = P256.Signing.PrivateKey(), serverKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Baton test CA") }
        let now = Date()
        let ca = try Certificate(version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
                                 notValidBefore: now - 300, notValidAfter: now + 3600, issuer: caName, subject: caName,
                                 signatureAlgorithm: .ecdsaWithSHA256,
                                 extensions: try .init { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0)) },
                                 issuerPrivateKey: .init(caKey))
        let leaf = try Certificate(version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
                                   notValidBefore: now - 300, notValidAfter: now + 3600, issuer: caName,
                                   subject: try DistinguishedName { CommonName("localhost") },
                                   signatureAlgorithm: .ecdsaWithSHA256,
                                   extensions: try .init {
                                       SubjectAlternativeNames([.dnsName("localhost")])
                                       try ExtendedKeyUsage([.serverAuth])
                                   },
                                   issuerPrivateKey: .init(caKey))
        caFile = root.appendingPathComponent("ca.pem")
        try ca.serializeAsPEM().pemString.write(to: caFile, atomically: true, encoding: .utf8)
        try leaf.serializeAsPEM().pemString.write(to: root.appendingPathComponent("server.pem"), atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(to: root.appendingPathComponent("server-key.pem"), atomically: true, encoding: .utf8)
        port = try freePort()
        let server = try RunningProcess(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", """
            cd '\(site.path)' && exec openssl s_server -WWW -accept 127.0.0.1:\(port) -cert '\(root.path)/server.pem' -key '\(root.path)/server-key.pem'
            """])
        self.server = server
        XCTAssertNotNil(server.waitForLine(containing: "ACCEPT"), server.output)
    }

    private func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(fd, $0, length) == 0, getsockname(fd, $0, &length) == 0 else { throw POSIXError(.EADDRINUSE) }
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    private var page: String { "https://localhost:\(port)/articles/7" }

    /// A browser device shows `page`; this app (the Reader, claiming `claims`) continues it.
    private func continueBrowsing(claims: [String], verifier: (@MainActor () throws -> any AssociatedDomainVerifier)? = nil)
        throws -> ContinuedActivityRecorder {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        let b = try authority.issueDevice(named: "B")
        let probe = try RunningProcess(product: "DeviceProbe", [a.path, "--ok", "--browsing", "--webpage", page])
        self.probe = probe
        let address = try XCTUnwrap(probe.listeningAddress(), probe.output)
        let caFile = self.caFile!
        let (recorder, node) = try MainActor.assumeIsolated { () throws -> (ContinuedActivityRecorder, ContinuityNode) in
            Application.shared.resetForTesting()
            let recorder = ContinuedActivityRecorder()
            Application.shared.delegate = recorder
            Application.shared.manifest = AppManifest(appID: "com.example.reader", teamIdentifier: "READERTEAM",
                                                      associatedDomains: claims)
            Application.shared.associatedDomainVerifier = try verifier?() ?? AssociatedDomains(trustedCertificates: caFile)
            Application.shared.finishLaunching()
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let entry = Application.shared.nearbyActivities[0]
            XCTAssertEqual(entry.activityType, UserActivity.browsingWebType)
            XCTAssertFalse(entry.continuesInBrowser, "this app claims the domain")
            XCTAssertEqual(Application.shared.continueNearbyActivity(entry), .inApp)
            spin(until: { recorder.activity != nil || recorder.failure != nil })
            return (recorder, node)
        }
        self.node = node
        return recorder
    }

    func testAConfirmedClaimContinuesWithTheURLAndAnEmptyUserInfo() throws {
        try serveSite(listing: ["OTHER.com.example.other", "READERTEAM.com.example.reader"])
        let recorder = try continueBrowsing(claims: ["activitycontinuation:localhost:\(port)"])
        let page = self.page
        MainActor.assumeIsolated {
            XCTAssertNil(recorder.failure)
            XCTAssertEqual(recorder.activity?.activityType, UserActivity.browsingWebType)
            XCTAssertEqual(recorder.activity?.webpageURL?.absoluteString, page)
            XCTAssertEqual(recorder.activity?.userInfo?.isEmpty ?? true, true, "the browser's data is not for the app")
        }
    }

    func testAClaimTheDomainDoesNotConfirmFails() throws {
        try serveSite(listing: ["READERTEAM.com.example.someone-else"])
        let recorder = try continueBrowsing(claims: ["activitycontinuation:localhost:\(port)"])
        MainActor.assumeIsolated {
            XCTAssertNil(recorder.activity)
            XCTAssertEqual(recorder.failure?.code, .userActivityHandoffFailed)
            XCTAssertTrue("\(String(describing: recorder.failure))".contains("does not list READERTEAM.com.example.reader"),
                          "\(String(describing: recorder.failure))")
        }
    }

    /// The file must come from a server the system's CA store trusts: the test CA is not in it.
    func testAServerTheSystemDoesNotTrustConfirmsNothing() throws {
        try serveSite(listing: ["READERTEAM.com.example.reader"])
        let recorder = try continueBrowsing(claims: ["activitycontinuation:localhost:\(port)"], verifier: { try AssociatedDomains() })
        let claimed = "localhost:\(port)"
        MainActor.assumeIsolated {
            XCTAssertNil(recorder.activity)
            XCTAssertEqual(recorder.failure?.code, .userActivityHandoffFailed)
            // The file could not be fetched from a trusted server: the verifier's typed error, beneath.
            var beneath: [any Error] = [], next: (any Error)? = recorder.failure
            while let error = next { beneath.append(error); next = (error as? CocoaError)?.userInfo[NSUnderlyingErrorKey] as? any Error }
            guard case .unreachable(let domain, _)? = beneath.compactMap({ $0 as? AssociatedDomainError }).first else {
                return XCTFail("not unreachable: \(String(describing: recorder.failure))")
            }
            XCTAssertEqual(domain, claimed)
        }
    }

    /// The fetch while a program hosts Baton in its own loop (`MainLoop.embed(in:)`, a context
    /// it iterates and never makes the thread's default): libsoup's session and request run on
    /// that context, and GLib's global default context is never needed.
    func testAClaimIsConfirmedWhileAHostRunsItsOwnContext() throws {
        try serveSite(listing: ["READERTEAM.com.example.reader"])
        let domain = "localhost:\(port)", caFile = self.caFile!
        try MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            let canary = DefaultContextCanary()
            defer { canary.remove() }
            let verifier = try AssociatedDomains(trustedCertificates: caFile)
            var outcome: Result<Bool, Error>?
            Task { @MainActor in
                do { outcome = .success(try await verifier.verify(domain, lists: "READERTEAM.com.example.reader")) } catch {
                    outcome = .failure(error)
                }
                host.quit()
            }
            XCTAssertTrue(host.run(limit: .seconds(20)), "the fetch never finished")
            XCTAssertEqual(try outcome?.get(), true)
            XCTAssertFalse(canary.iterated, "GLib's global default context was iterated")
        }
    }

    func testClaimsMatchHTTPSPagesOfTheDomainOnly() {
        let manifest = AppManifest(appID: "a", teamIdentifier: "T",
                                   associatedDomains: ["activitycontinuation:reader.example.org", "activitycontinuation:*.news.example.org",
                                                       "applinks:other.example.org", "activitycontinuation:localhost:8443"])
        XCTAssertEqual(manifest.claimedDomain(for: URL(string: "https://reader.example.org/a")!), "reader.example.org")
        XCTAssertEqual(manifest.claimedDomain(for: URL(string: "https://READER.example.org/a")!), "reader.example.org")
        XCTAssertNil(manifest.claimedDomain(for: URL(string: "http://reader.example.org/a")!), "https only")
        XCTAssertNil(manifest.claimedDomain(for: URL(string: "https://evilreader.example.org/a")!))
        XCTAssertEqual(manifest.claimedDomain(for: URL(string: "https://eu.news.example.org/x")!), "*.news.example.org")
        XCTAssertNil(manifest.claimedDomain(for: URL(string: "https://other.example.org/x")!), "applinks is another service")
        XCTAssertEqual(manifest.claimedDomain(for: URL(string: "https://localhost:8443/x")!), "localhost:8443")
        XCTAssertNil(manifest.claimedDomain(for: URL(string: "https://localhost:9443/x")!))
        XCTAssertTrue(manifest.canContinue(activityType: UserActivity.browsingWebType, fromTeam: "ANY"))
        XCTAssertFalse(AppManifest(appID: "a", teamIdentifier: "T").canContinue(activityType: UserActivity.browsingWebType, fromTeam: "T"))
    }

    func testTheFileIsReadStrictly() throws {
        XCTAssertEqual(try AssociatedDomains.apps(in: Data(#"{"activitycontinuation":{"apps":["T.a"]}}"#.utf8), domain: "d"), ["T.a"])
        XCTAssertEqual(try AssociatedDomains.apps(in: Data(#"{"applinks":{}}"#.utf8), domain: "d"), [])
        XCTAssertThrowsError(try AssociatedDomains.apps(in: Data("[1]".utf8), domain: "d"))
        XCTAssertThrowsError(try AssociatedDomains.apps(in: Data(#"{"activitycontinuation":{"apps":"T.a"}}"#.utf8), domain: "d"))
    }
}
