@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import BatonTestSupport
import XCTest

/// Issue 26: `org.baton.Device1` declared once in Swift (`DeviceMethod`, `DeviceSignal`); the
/// XML the engine checks calls against is made from it and says what docs/PROTOCOL.md says,
/// and a call is read into the declaration or refused.
final class DeviceInterfaceDeclarationTests: XCTestCase {
    /// The interface as it was written by hand before the declaration (the wire protocol).
    static let protocolXML = """
        <node>
          <interface name="org.baton.Device1">
            <method name="GetCurrent"><arg name="activity" type="a{sv}" direction="out"/></method>
            <method name="FetchPayload">
              <arg name="sequence" type="t" direction="in"/><arg name="payload" type="ay" direction="out"/>
            </method>
            <method name="Continued"><arg name="sequence" type="t" direction="in"/></method>
            <method name="GetRevocations"><arg name="list" type="ay" direction="out"/></method>
            <method name="OpenStreams">
              <arg name="sequence" type="t" direction="in"/><arg name="stream" type="u" direction="in"/>
            </method>
            <method name="GetDiscoveryKey"><arg name="key" type="ay" direction="out"/></method>
            <signal name="CurrentChanged"><arg name="activity" type="a{sv}"/></signal>
            <signal name="RevocationsChanged"><arg name="list" type="ay"/></signal>
            <signal name="StreamData"><arg name="stream" type="u"/><arg name="bytes" type="ay"/></signal>
            <signal name="StreamEnd"><arg name="stream" type="u"/></signal>
            <signal name="StreamReset"><arg name="stream" type="u"/><arg name="aborted" type="b"/></signal>
            <signal name="StreamCredit"><arg name="stream" type="u"/><arg name="bytes" type="u"/></signal>
          </interface>
        </node>
        """

    func testTheGeneratedXMLIsTheProtocolsInterface() {
        XCTAssertEqual(DBusInterfaceShape(DeviceInterface.info), DBusInterfaceShape(DBusInterfaceDeclaration.info(Self.protocolXML)))
        XCTAssertEqual(DBusInterfaceShape(DeviceInterface.info).methods["OpenStreams"], ["(tu)", "()"])
        XCTAssertEqual(DBusInterfaceShape(DeviceInterface.info).signals.count, DeviceSignal.Member.allCases.count)
        XCTAssertEqual(String(cString: DeviceInterface.info.pointee.name), DeviceInterface.name)
    }

    func testEveryMethodIsReadBackFromItsCall() throws {
        let methods: [DeviceMethod] = [.getCurrent, .fetchPayload(sequence: 7), .continued(sequence: 8), .getRevocations,
                                       .openStreams(sequence: 9, stream: 3), .getDiscoveryKey]
        XCTAssertEqual(Set(methods.map(\.member)), Set(DeviceMethod.Member.allCases))
        for method in methods {
            XCTAssertEqual(try DeviceMethod(name: method.member.rawValue, arguments: method.arguments), method)
            XCTAssertEqual("(" + method.arguments.map(\.typeString).joined() + ")", method.member.argumentType)
        }
        let signals: [DeviceSignal] = [.currentChanged(.dictionary(["sequence": .uint64(1)])), .revocationsChanged(Data([1, 2])),
                                       .streamData(stream: 1, bytes: Data([3])), .streamEnd(stream: 1),
                                       .streamReset(stream: 2, aborted: true), .streamCredit(stream: 2, bytes: 4096)]
        XCTAssertEqual(Set(signals.map(\.member)), Set(DeviceSignal.Member.allCases))
        for signal in signals {
            XCTAssertEqual(try DeviceSignal(signal.member, arguments: signal.arguments), signal)
        }
    }

    func testAMalformedCallIsRefusedNamingWhatIsWrong() {
        XCTAssertThrowsError(try DeviceMethod(name: "FetchPayloads", arguments: [.uint64(1)])) { error in
            XCTAssertEqual((error as? DBusMessageMismatch)?.description, "org.baton.Device1 has no FetchPayloads")
        }
        XCTAssertThrowsError(try DeviceMethod(name: "FetchPayload", arguments: [.uint32(1)])) { error in
            XCTAssertEqual((error as? DBusMessageMismatch)?.description, "FetchPayload takes (t), not (u)")
        }
        XCTAssertThrowsError(try DeviceMethod(name: "GetCurrent", arguments: [.uint64(1)]))
        XCTAssertThrowsError(try DeviceMethod(name: "Continued", arguments: []))
        XCTAssertThrowsError(try DeviceSignal(.revocationsChanged, arguments: [.string("list")]))
        XCTAssertThrowsError(try DeviceSignal(.currentChanged, arguments: []))
    }
}
