@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Issue 26: a call the node answers reads the revocation list beside the identity only if
/// the file changed (its `stat` differs from when it was last read); reading it each time made
/// every call the node answers cost a file read. A list copied in is still taken by the very
/// next call, before the file watch fires.
final class TrustSyncTests: TrustTestCase {
    /// The read system calls this process has made, and the bytes they read (`/proc/self/io`).
    private static func reads() throws -> (calls: Int, bytes: Int) {
        let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        func value(_ key: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(key + ":") }.flatMap { Int($0.split(separator: " ").last!) } ?? -1
        }
        return (value("syscr"), value("rchar"))
    }

    func testACallAnsweredReadsTheListOnlyWhenItChanged() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var folders: [String: URL] = [:]
        for name in ["A", "C"] {
            folders[name] = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folders[name]!)
        }
        let c = try DeviceIdentity.load(from: folders["C"]!)
        let listFile = folders["A"]!.appendingPathComponent("revocations")
        let listSize = try Data(contentsOf: listFile).count
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folders["A"]!), identityDirectory: folders["A"]!)
            let peer = DevicePeer(id: c.identifier, serial: c.certificate.serialHex)
            XCTAssertNil(node.refusal(of: peer))  // the first call reads the list once
            let calls = 1000
            let before = try Self.reads()
            for _ in 0..<calls { XCTAssertNil(node.refusal(of: peer)) }
            let after = try Self.reads()
            let (readCalls, readBytes) = (after.calls - before.calls, after.bytes - before.bytes)
            print("\(calls) calls answered with the list unchanged: \(readCalls) read system calls, \(readBytes) bytes read (list: \(listSize) bytes)")
            XCTAssertLessThan(readBytes, listSize * 10, "read no file for \(calls) calls (reading the list each time is ≥ \(calls * listSize) bytes)")
            XCTAssertLessThan(readCalls, calls / 10)

            // Changed on disk: the next call reads it and refuses the device it revokes.
            try authority.revokeDevice(named: "C").write(to: listFile, options: .atomic)
            XCTAssertEqual(node.refusal(of: peer), "C has been revoked")
            XCTAssertEqual(node.identity.revocations.sequence, 3)
        }
    }
}
