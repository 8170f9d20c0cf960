@testable import BatonContinuity
import BatonLoop
import Foundation
import XCTest

/// Issue 26: the callee answers through the same declarations the caller reads
/// (`DBusCall`, `DBusAnswer`): each reply a `org.baton.Device1` callee writes is of the type
/// its method declares and reads back as the value written, and a failure goes out under the
/// interface's error name.
final class DBusAnswerTests: XCTestCase {
    /// Writes `value` as `declared`'s reply, then checks its D-Bus type against the declaration
    /// and reads it back as the caller does.
    private func roundTrip<Reply: Equatable>(_ declared: DBusCall<DeviceMethod, Reply>, _ value: Reply,
                                             file: StaticString = #filePath, line: UInt = #line) throws {
        let values = try XCTUnwrap(declared.values, "\(declared.method.member) declares its reply's values", file: file, line: line)(value)
        XCTAssertEqual("(" + values.map(\.typeString).joined() + ")", declared.method.member.replyType, file: file, line: line)
        XCTAssertEqual(declared.reply(values), value, file: file, line: line)
    }

    func testEveryReplyACalleeWritesIsOfItsDeclaredTypeAndReadsBack() throws {
        try roundTrip(.getCurrent, DeviceInterface.metadata(nil))
        try roundTrip(.fetchPayload(sequence: 3), Data("payload".utf8))
        try roundTrip(.getRevocations, Data([1, 2, 3]))
        try roundTrip(.getDiscoveryKey, Data(repeating: 7, count: 32))
        let continued = try XCTUnwrap(DBusCall<DeviceMethod, Void>.continued(sequence: 3).values)(())
        XCTAssertEqual(continued.count, 0)
        XCTAssertEqual(DeviceMethod.Member.continued.replyType, "()")
    }

    /// A reply and a failure reach the caller as `MethodCall`'s answer: the values written, or
    /// the error name of the interface's list.
    func testAnAnswerGoesOutAsDeclared() {
        MainActor.assumeIsolated {
            var answers: [MethodCall.Answer] = []
            let payload = MethodCall(method: "FetchPayload", arguments: [.uint64(3)], unansweredErrorName: "unanswered") { answers.append($0) }
            DBusAnswer<DeviceMethod>(payload).reply(.fetchPayload(sequence: 3), Data([9]))
            let refused = MethodCall(method: "Continued", arguments: [.uint64(3)], unansweredErrorName: "unanswered") { answers.append($0) }
            DBusAnswer<DeviceMethod>(refused).fail(.notCurrent, "gone")
            XCTAssertEqual(answers.count, 2)
            guard case .values(let values) = answers.first, case .error(let name, let message) = answers.last else {
                return XCTFail("\(answers)")
            }
            XCTAssertEqual(values.first?.bytesValue, Data([9]))
            XCTAssertEqual(name, HandoffFailure.DeviceErrorName.notCurrent.rawValue)
            XCTAssertEqual(message, "gone")
        }
    }
}
