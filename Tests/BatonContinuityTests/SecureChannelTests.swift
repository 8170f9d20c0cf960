@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// Iterates the real GLib loop until `condition`, failing the test after 20 s.
@MainActor
func spin(until condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(MainLoop.run(until: condition, timeout: .seconds(20)), "timed out", file: file, line: line)
}

/// The outcome of an async call, for tests that wait on the loop.
@MainActor
final class Outcome<T> {
    var value: Result<T, Error>?
    var done: Bool { value != nil }

    init(_ body: @escaping @MainActor () async throws -> T) {
        Task { @MainActor in
            do { value = .success(try await body()) } catch { value = .failure(error) }
        }
    }

    func get() throws -> T { try value!.get() }
    var error: Error? { if case .failure(let e)? = value { e } else { nil } }
}

/// DESIGN.md section 5 "Trust" and "Transport": mutual TLS 1.3 against the group's anchor,
/// ALPN baton/1, on the GLib loop.
final class SecureChannelTests: TrustTestCase {
    func testTwoDevicesOfTheGroupProveThemselvesToEachOther() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        try MainActor.assumeIsolated {
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            let server = Outcome { try await listener.accept() }
            let phoneCredential = try TLSCredential(identity: phone)
            let client = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port,
                                                                   identity: phone, credential: phoneCredential) }
            spin(until: { server.done && client.done })
            XCTAssertEqual(try server.get().peerName, "phone")
            XCTAssertEqual(try client.get().peerName, "laptop")
        }
    }

    func testADeviceOfAnotherGroupIsRefusedByBothSides() throws {
        let ada = try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "laptop")
        let eve = try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "laptop")
        try MainActor.assumeIsolated {
            let listener = try SecureListener(identity: ada, credential: try TLSCredential(identity: ada))
            let server = Outcome { try await listener.accept() }
            let eveCredential = try TLSCredential(identity: eve)
            let client = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port,
                                                                   identity: eve, credential: eveCredential) }
            spin(until: { server.done && client.done })
            XCTAssertNotNil(server.error)
            XCTAssertNotNil(client.error)
            let refusals = [server.error, client.error].compactMap { error -> TrustError? in
                if case .peerRejected(let trust)? = error as? TransportError { trust } else { nil }
            }
            XCTAssertFalse(refusals.isEmpty, "at least one side names the refusal: \(String(describing: server.error)) / \(String(describing: client.error))")
        }
    }
}
