import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import BatonTestSupport
import XCTest
@testable import BatonAgent

/// Issue 26: the agent's interfaces declared once in Swift (`AgentMethod`, `AgentSignal`,
/// `AppMethod`); the XML the engine checks calls against is made from them and is the
/// protocol's, and every call and signal reads back into its declaration.
final class AgentInterfaceDeclarationTests: XCTestCase {
    /// The interfaces as written by hand before the declarations (the wire protocol).
    enum Wire {
        static let protocolAgentXML = """
            <node>
              <interface name="org.baton.Agent1">
                <method name="Join">
                  <arg name="app" type="s" direction="in"/><arg name="team" type="s" direction="in"/>
                  <arg name="types" type="as" direction="in"/><arg name="version" type="u" direction="out"/>
                </method>
                <method name="SetAdvertisement">
                  <arg name="activity" type="a{sv}" direction="in"/><arg name="active" type="b" direction="in"/>
                </method>
                <method name="HoldPayload">
                  <arg name="id" type="t" direction="in"/><arg name="payload" type="ay" direction="in"/>
                </method>
                <method name="PayloadChanged"><arg name="id" type="t" direction="in"/></method>
                <method name="GetNearby"><arg name="activities" type="aa{sv}" direction="out"/></method>
                <method name="GetStatus"><arg name="status" type="s" direction="out"/></method>
                <method name="GetStatusWithoutPings"><arg name="status" type="s" direction="out"/></method>
                <method name="FetchPayload">
                  <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
                  <arg name="payload" type="ay" direction="out"/>
                </method>
                <method name="Continued">
                  <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
                </method>
                <method name="OpenStreams">
                  <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
                  <arg name="token" type="ay" direction="out"/>
                </method>
                <method name="OpenStreamsPipelined">
                  <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
                  <arg name="token" type="ay" direction="in"/>
                </method>
                <method name="ContinueNearby">
                  <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
                  <arg name="activationToken" type="s" direction="in"/><arg name="app" type="s" direction="out"/>
                </method>
                <signal name="NearbyChanged"><arg name="activities" type="aa{sv}"/></signal>
                <method name="OpenPairingWindow">
                  <arg name="seconds" type="u" direction="in"/><arg name="host" type="s" direction="in"/>
                  <arg name="port" type="u" direction="in"/><arg name="listening" type="u" direction="out"/>
                </method>
                <method name="AnswerPairing">
                  <arg name="request" type="t" direction="in"/><arg name="confirmed" type="b" direction="in"/>
                </method>
                <method name="ClosePairingWindow"/>
                <method name="Inspect">
                  <arg name="app" type="s" direction="in"/><arg name="actions" type="as" direction="in"/>
                  <arg name="inspection" type="s" direction="out"/>
                </method>
                <method name="WatchInspection"><arg name="on" type="b" direction="in"/></method>
                <method name="InspectionChanged"><arg name="summary" type="s" direction="in"/></method>
                <signal name="InspectionEvent"><arg name="event" type="s"/></signal>
                <signal name="PairingRequest">
                  <arg name="request" type="t"/><arg name="code" type="s"/><arg name="peer" type="s"/>
                  <arg name="newcomerTypes" type="b"/><arg name="group" type="s"/>
                </signal>
                <signal name="PairingRequestEnded"><arg name="request" type="t"/></signal>
                <signal name="PairingEvent"><arg name="text" type="s"/></signal>
                <signal name="PairingWindowClosed"><arg name="paired" type="b"/><arg name="text" type="s"/></signal>
              </interface>
            </node>
            """

        static let protocolAppXML = """
            <node>
              <interface name="org.baton.App1">
                <method name="FetchPayload">
                  <arg name="id" type="t" direction="in"/><arg name="payload" type="ay" direction="out"/>
                </method>
                <method name="Continued"><arg name="id" type="t" direction="in"/></method>
                <method name="StreamsArrived">
                  <arg name="id" type="t" direction="in"/><arg name="token" type="ay" direction="in"/>
                </method>
                <method name="ContinueNearby"><arg name="activity" type="a{sv}" direction="in"/></method>
                <method name="Inspect">
                  <arg name="actions" type="as" direction="in"/><arg name="inspection" type="s" direction="out"/>
                </method>
                <method name="WatchInspection"><arg name="on" type="b" direction="in"/></method>
              </interface>
            </node>
            """
    }

    func testTheGeneratedXMLIsTheProtocolsInterfaces() {
        XCTAssertEqual(DBusInterfaceShape(AgentInterface.agentInfo), DBusInterfaceShape(DBusInterfaceDeclaration.info(Wire.protocolAgentXML)))
        XCTAssertEqual(DBusInterfaceShape(AgentInterface.agentInfo).methods.count, AgentMethod.Member.allCases.count)
        XCTAssertEqual(DBusInterfaceShape(AgentInterface.agentInfo).methods["Join"], ["(ssas)", "(u)"])
        XCTAssertEqual(DBusInterfaceShape(AgentInterface.appInfo), DBusInterfaceShape(DBusInterfaceDeclaration.info(Wire.protocolAppXML)))
    }

    func testEveryCallAndSignalReadsBack() throws {
        let methods: [AgentMethod] = [
            .join(app: "a", team: "T", types: ["x", "y"]), .join(app: "a", team: "T", types: []),
            .setAdvertisement(activity: .dictionary([:]), active: true), .holdPayload(id: 1, payload: Data([1])),
            .payloadChanged(id: 2), .getNearby, .getStatus, .getStatusWithoutPings, .fetchPayload(device: "d", sequence: 3),
            .continued(device: "d", sequence: 4), .openStreams(device: "d", sequence: 5),
            .openStreamsPipelined(device: "d", sequence: 5, token: Data(count: 32)),
            .continueNearby(device: "d", sequence: 6, activationToken: ""), .openPairingWindow(seconds: 60, host: "::", port: 0),
            .answerPairing(request: 7, confirmed: true), .closePairingWindow,
            .inspect(app: "", actions: ["copy"]), .inspect(app: "a", actions: []), .watchInspection(on: true),
            .inspectionChanged(summary: "{}"),
        ]
        XCTAssertEqual(Set(methods.map(\.member)), Set(AgentMethod.Member.allCases))
        for method in methods {
            XCTAssertEqual(try AgentMethod(name: method.member.rawValue, arguments: method.arguments), method)
        }
        let signals: [AgentSignal] = [
            .nearbyChanged(activities: .array(elementType: "a{sv}", [])),
            .pairingRequest(request: 1, code: "123 456", peer: "p", newcomerTypes: false, group: "g"),
            .pairingRequestEnded(request: 1), .pairingEvent(text: "t"), .pairingWindowClosed(paired: true, text: "t"),
            .inspectionEvent(event: "{}"),
        ]
        XCTAssertEqual(Set(signals.map(\.member)), Set(AgentSignal.Member.allCases))
        for signal in signals {
            XCTAssertEqual(try AgentSignal(signal.member, arguments: signal.arguments), signal)
        }
        let calls: [AppMethod] = [.fetchPayload(id: 1), .continued(id: 2), .streamsArrived(id: 3, token: Data([9])),
                                  .continueNearby(activity: .dictionary([:])), .inspect(actions: ["copy", "paste"]),
                                  .watchInspection(on: false)]
        XCTAssertEqual(Set(calls.map(\.member)), Set(AppMethod.Member.allCases))
        for call in calls {
            XCTAssertEqual(try AppMethod(name: call.member.rawValue, arguments: call.arguments), call)
        }
    }

    func testAMalformedCallIsRefused() {
        XCTAssertThrowsError(try AgentMethod(name: "Joins", arguments: []))
        XCTAssertThrowsError(try AgentMethod(name: "FetchPayload", arguments: [.uint64(1), .string("d")]))
        XCTAssertThrowsError(try AgentMethod(name: "Join", arguments: [.string("a"), .string("T"), .array(elementType: "u", [.uint32(1)])]))
        XCTAssertThrowsError(try AppMethod(name: "StreamsArrived", arguments: [.uint64(1)]))
        XCTAssertThrowsError(try AgentSignal(.pairingWindowClosed, arguments: [.string("t"), .bool(true)]))
    }
}
