import BatonAgent
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// `baton inspect` and `baton why` against real agents, apps and `baton` processes: what an app
/// shows of itself through the connection it already has, each reason an activity from another
/// device is or is not offered here (about-handoff: only an app of the same team that declares
/// the type continues it; handoff-programming-guide, "Native App-to-Web Browser Handoff": else
/// the browser opens its web page), and an app that does not answer, bounded.
final class AgentInspectionTests: AgentTestCase {
    /// `baton why --json`'s document.
    private struct Why: Decodable {
        var subject: String
        var reason: String
        var sentence: String
        var facts: [String]
    }

    /// `batond` for the device in `folder`, with no installed app (its XDG data folders empty),
    /// so only the apps a test starts decide what is offered.
    private func isolatedAgent(_ folder: String, socket: String, peers: [String] = []) throws -> (RunningProcess, String) {
        let data = root.appendingPathComponent("data-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let process = try start("batond", ["--device", folder, "--listen", "127.0.0.1:0", "--socket", socket] + peers.flatMap { ["--peer", $0] },
                                environment: ["XDG_DATA_HOME": data.path, "XDG_DATA_DIRS": data.path])
        let address = try XCTUnwrap(process.listeningAddress(), process.output)
        XCTAssertTrue(process.waitForAgentServing(at: socket), process.output)
        return (process, address.description)
    }

    /// The probe app joined to the agent at `socket`, advertising com.example.probe.editing.
    private func probe(_ socket: String, _ arguments: [String]) throws -> RunningProcess {
        let process = try start("DeviceProbe", [root.path] + arguments + ["--agent", socket])
        XCTAssertTrue(process.waitForJoinedAgent(at: socket), process.output)
        return process
    }

    private func inspect(_ socket: String, _ arguments: [String] = []) throws -> AgentInspection {
        let result = try runProduct("baton", ["inspect", "--json", "--agent", socket] + arguments, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try InspectionJSON.decoder().decode(AgentInspection.self, from: Data(result.stdout.utf8))
    }

    private func why(_ subject: String, _ socket: String) throws -> Why {
        let result = try runProduct("baton", ["why", subject, "--json", "--agent", socket], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode(Why.self, from: Data(result.stdout.utf8))
    }

    func testInspectShowsAJoinedAppsWindowsResponderChainAndCurrentActivity() throws {
        let folders = try devices("A")
        _ = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let reader = try app("baton-reader", socket: socket("a.sock"), ["--read", "7"])

        let inspection = try inspect(socket("a.sock"), ["com.example.reader", "--action", "noSuchAction"])
        XCTAssertEqual(inspection.apps.map(\.appID), ["com.example.reader"], "only the app asked for, not the command itself")
        let report = try XCTUnwrap(inspection.apps.first)
        XCTAssertEqual(report.processID, reader.processIdentifier)
        XCTAssertFalse(report.didNotAnswer)
        let app = try XCTUnwrap(report.inspection, report.problem ?? "")
        XCTAssertEqual(app.appID, "com.example.reader")
        XCTAssertEqual(app.teamIdentifier, "EXAMPLETEAM")
        let key = try XCTUnwrap(app.keyWindow)
        XCTAssertTrue(key.isMain)
        let chain = try XCTUnwrap(key.responderChain)
        XCTAssertEqual(chain.first?.isFirstResponder, true, "the chain starts at the first responder")
        XCTAssertTrue(chain.contains { $0.typeName == "ArticleViewController" && $0.userActivityType == "com.example.reader.reading" },
                      "\(chain)")
        XCTAssertTrue(chain.contains { $0.typeName == "Window" })
        XCTAssertTrue(chain.contains { $0.typeName == "Application" })
        let current = try XCTUnwrap(app.currentActivity)
        XCTAssertEqual(current.activityType, "com.example.reader.reading")
        XCTAssertEqual(current.advertising, .advertised)
        XCTAssertEqual(current.declaredInManifest, true)
        XCTAssertEqual(current.payloadAssessment, .withinAdvice)
        XCTAssertEqual(app.actions.map(\.isKnown), [false])

        // The document keeps to the schema of docs/INSPECT.md: each object has its required
        // keys and no key the schema does not name.
        let raw = try runProduct("baton", ["inspect", "--json", "--agent", socket("a.sock"), "--action", "copy"], timeout: 60)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(raw.stdout.utf8)) as? [String: Any])
        try checkSchema(document)

        // The text form shows the same chain, escaped.
        let text = try runProduct("baton", ["inspect", "--agent", socket("a.sock")], timeout: 60)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("app: com.example.reader, pid \(reader.processIdentifier)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("[userActivity com.example.reader.reading]"), text.stdout)
        XCTAssertTrue(text.stdout.contains("current activity: com.example.reader.reading"), text.stdout)
    }

    /// The keys of each object of docs/INSPECT.md's schema: required, then optional.
    private static let schema: [String: (required: Set<String>, optional: Set<String>)] = [
        "AgentInspection": (["device", "groupDevices", "nearby", "apps", "continuations", "revokedDevices"], []),
        "AppReport": (["appID", "processID", "isAdvertised", "didNotAnswer"], ["advertisedActivityType", "inspection", "problem"]),
        "ApplicationInspection": (["processID", "isActive", "isHidden", "isFinishedLaunching", "windows", "otherActivities", "actions",
                                   "continuations"],
                                  ["appID", "teamIdentifier", "keyWindowNumber", "mainWindowNumber", "currentActivity"]),
        "WindowInspection": (["number", "title", "typeName", "isVisible", "isPanel", "isKey", "isMain"], ["firstResponder", "responderChain"]),
        "ResponderInspection": (["description", "typeName", "isFirstResponder"], ["userActivityType"]),
        "ActivityInspection": (["activityType", "holders", "isCurrent", "isManaged", "needsSave", "saveCount", "coalescedSaveRequests",
                                "payloadAssessment", "isEligibleForHandoff", "advertising"],
                               ["title", "lastSaved", "payloadSize", "payloadError", "webpageURL", "expirationDate", "declaredInManifest",
                                "teamIdentifier"]),
        "ActionInspection": (["name", "isKnown", "isEnabled"], ["menuItemTitle", "target", "targetTypeName"]),
        "ContinuationRecord": (["id", "activityType", "side", "steps", "droppedSteps"], ["title", "device", "sequence"]),
        "LinkStatus": (["device", "address", "since", "dialedByThisDevice", "path", "droppedStreamBytes"], ["roundTripMilliseconds"]),
        "ContinuationStep": (["time", "kind"], []),
        "NearbyInspection": (["device", "sequence", "activityType", "appID", "teamIdentifier", "offer", "explanation"],
                             ["title", "webpageURL"]),
    ]

    /// The steps' kinds of docs/INSPECT.md: each an object with one key.
    private static let stepKinds: Set<String> = ["asked", "appLaunched", "appJoined", "openedInBrowser", "willContinue", "payloadFetched",
                                                 "continued", "failed", "wasContinuedSent", "streamsOpened", "streamsEnded",
                                                 "payloadServed", "wasContinuedReceived"]

    private func checkContinuations(_ records: Any?) throws {
        for record in try XCTUnwrap(records as? [Any], "continuations is a list") {
            let checked = try checkObject(record, as: "ContinuationRecord")
            for step in try XCTUnwrap(checked["steps"] as? [Any]) {
                let kind = try XCTUnwrap(try checkObject(step, as: "ContinuationStep")["kind"] as? [String: Any])
                XCTAssertEqual(kind.count, 1, "\(kind)")
                XCTAssertTrue(kind.keys.allSatisfy(Self.stepKinds.contains), "undocumented step \(kind)")
            }
        }
    }

    private func checkObject(_ object: Any?, as name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let dictionary = try XCTUnwrap(object as? [String: Any], "\(name) is not an object", file: file, line: line)
        let (required, optional) = try XCTUnwrap(Self.schema[name])
        let keys = Set(dictionary.keys)
        XCTAssertTrue(required.isSubset(of: keys), "\(name) lacks \(required.subtracting(keys))", file: file, line: line)
        XCTAssertTrue(keys.isSubset(of: required.union(optional)), "\(name) has undocumented \(keys.subtracting(required.union(optional)))",
                      file: file, line: line)
        return dictionary
    }

    private func checkSchema(_ document: [String: Any]) throws {
        let top = try checkObject(document, as: "AgentInspection")
        try checkContinuations(top["continuations"])
        let device = try XCTUnwrap(top["device"] as? [String: Any])
        for link in try XCTUnwrap(device["links"] as? [Any]) {
            let checked = try checkObject(link, as: "LinkStatus")
            XCTAssertTrue(["lan", "directAcrossNATs", "relayed"].contains(checked["path"] as? String), "\(checked)")
        }
        for nearby in try XCTUnwrap(top["nearby"] as? [Any]) { _ = try checkObject(nearby, as: "NearbyInspection") }
        for app in try XCTUnwrap(top["apps"] as? [Any]) {
            let report = try checkObject(app, as: "AppReport")
            guard let inspection = report["inspection"] else { continue }
            let snapshot = try checkObject(inspection, as: "ApplicationInspection")
            for window in try XCTUnwrap(snapshot["windows"] as? [Any]) {
                let checked = try checkObject(window, as: "WindowInspection")
                for link in checked["responderChain"] as? [Any] ?? [] { _ = try checkObject(link, as: "ResponderInspection") }
            }
            let activities = [snapshot["currentActivity"]].compactMap { $0 } + (snapshot["otherActivities"] as? [Any] ?? [])
            for activity in activities { _ = try checkObject(activity, as: "ActivityInspection") }
            for action in try XCTUnwrap(snapshot["actions"] as? [Any]) { _ = try checkObject(action, as: "ActionInspection") }
            try checkContinuations(snapshot["continuations"])
        }
    }

    func testWhyGivesEachReasonAnActivityOfAnotherDeviceIsOrIsNotOfferedHere() throws {
        let type = "com.example.probe.editing"
        let folders = try devices("C", "A", "B")  // B's signed list, issued last, names C too
        let (agentA, address) = try isolatedAgent(folders[1], socket: socket("a.sock"))
        let (agentB, _) = try isolatedAgent(folders[2], socket: socket("b.sock"), peers: [address])
        _ = try probe(socket("a.sock"), ["--ok"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", type), agentB.output)

        // On A, where an app holds the activity: advertised from here.
        XCTAssertEqual(try why(type, socket("a.sock")).reason, "advertisedHere")
        var answer = try why(type, socket("b.sock"))
        XCTAssertEqual(answer.reason, "noAppDeclaresType", answer.sentence)

        // An app here declares the type, for another team.
        let otherTeam = try probe(socket("b.sock"), ["--team", "OTHERTEAM"])
        answer = try why(type, socket("b.sock"))
        XCTAssertEqual(answer.reason, "differentTeam", answer.sentence)
        XCTAssertTrue(answer.sentence.contains("com.example.probe"), answer.sentence)

        // An app of the activity's team that declares the type: it is offered to that app.
        otherTeam.terminate()
        XCTAssertTrue(agentB.waitFor(.appLeft(appID: "com.example.probe", reason: nil)), agentB.output)
        _ = try probe(socket("b.sock"), ["--ok"])
        answer = try why(type, socket("b.sock"))
        XCTAssertEqual(answer.reason, "offeredToApp", answer.sentence)
        XCTAssertEqual(try inspect(socket("b.sock")).nearby.first { $0.activity.device == "A" }?.offer, .app(appID: "com.example.probe", isRunning: true))

        // A web browser's activity on A no app here claims: the browser opens its page.
        let browsing = "NSUserActivityTypeBrowsingWeb"
        _ = try probe(socket("a.sock"), ["--ok", "--browsing", "--webpage", "https://example.com/note"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", browsing), agentB.output)
        XCTAssertEqual(try inspect(socket("b.sock")).nearby.first { $0.activity.device == "A" }?.offer,
                       .browser(url: URL(string: "https://example.com/note")!, otherTeamApps: []))
        answer = try why(browsing, socket("b.sock"))
        XCTAssertEqual(answer.reason, "offeredToBrowser", answer.sentence)

        // The devices: A linked, C in the group but not linked, Z unknown.
        XCTAssertEqual(try why("A", socket("b.sock")).reason, "deviceLinked")
        XCTAssertEqual(try why("C", socket("b.sock")).reason, "deviceNotLinked")
        XCTAssertEqual(try why("Z", socket("b.sock")).reason, "deviceUnknown")
        XCTAssertEqual(try why("com.example.nobody.has", socket("b.sock")).reason, "notAdvertised")
        _ = agentA
    }

    /// A step's name: its case without its values.
    private func names(_ steps: [ContinuationStep]) -> [String] {
        steps.map { String(String(describing: $0.kind).prefix { $0 != "(" }) }
    }

    /// Continuations step by step, in the agent that routes them and in the app that continues
    /// them (handoff-programming-guide, "Continuing an Activity": `willContinue`, the payload,
    /// then `continue` or `didFail`, then the originating device told): one that succeeds, with
    /// streams and their bytes, and one that fails with its code; each step present, in order,
    /// in `baton inspect` and, as it happens, in `--watch`.
    func testInspectShowsEachContinuationStepByStepInTheAgentAndTheApp() throws {
        let type = "com.example.probe.editing"
        let folders = try devices("A", "B")
        let (agentA, address) = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let (agentB, _) = try isolatedAgent(folders[1], socket: socket("b.sock"), peers: [address])
        let probeA = try probe(socket("a.sock"), ["--ok", "--streams"])
        let probeB = try probe(socket("b.sock"), ["--ok"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", type), agentB.output)
        let watcher = try start("baton", ["inspect", "--watch", "--json", "--agent", socket("b.sock")])
        XCTAssertNotNil(watcher.watchedInspection(), watcher.output)
        let watcherA = try start("baton", ["inspect", "--watch", "--json", "--agent", socket("a.sock")])
        XCTAssertNotNil(watcherA.watchedInspection(), watcherA.output)
        let noConfig = ["--config", root.appendingPathComponent("no-config").path]

        // Continued, then 1000 bytes asked for over its streams.
        var continued = try runProduct("baton", ["continue", "--agent", socket("b.sock")] + noConfig, timeout: 60)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertNotNil(probeB.waitForLine(containing: "continued Probe"), probeB.output)
        XCTAssertNotNil(watcher.waitForContinuationStep { $0 == .wasContinuedSent }, watcher.output)
        probeB.send("streams 1000")
        XCTAssertNotNil(probeB.waitForLine(containing: "stream received 1000, pattern intact"), probeB.output)
        let ended = try XCTUnwrap(watcher.waitForInspectionEvent {
            if case .streamsEnded? = $0.continuation?.steps.last?.kind { true } else { false }
        }, watcher.output)
        XCTAssertNil(ended.event)
        XCTAssertEqual(ended.continuation?.steps.last?.kind, .streamsEnded(sent: "send 1000".utf8.count, received: 1000))

        var inspection = try inspect(socket("b.sock"))
        let link = try XCTUnwrap(inspection.device.links.first { $0.device == "A" }, "B is linked to A")
        XCTAssertGreaterThan(try XCTUnwrap(link.roundTripMilliseconds, "the link's round trip, measured as B is inspected"), 0)
        var routed = try XCTUnwrap(inspection.continuations.last, "the agent's record")
        XCTAssertEqual(names(routed.steps), ["asked", "appJoined", "payloadFetched", "wasContinuedSent", "streamsOpened", "streamsEnded"])
        XCTAssertEqual(routed.steps[1].kind, .appJoined(appID: "com.example.probe"))
        XCTAssertEqual(routed.device, "A")
        XCTAssertEqual(routed.activityType, type)
        XCTAssertEqual(routed.steps.map(\.time), routed.steps.map(\.time).sorted(), "each step after the one before")
        var app = try XCTUnwrap(inspection.apps.first { $0.processID == probeB.processIdentifier }?.inspection, "the app's own record")
        var own = try XCTUnwrap(app.continuations.last)
        XCTAssertEqual(names(own.steps), ["asked", "willContinue", "payloadFetched", "continued", "wasContinuedSent"])
        XCTAssertEqual(own.steps[2].kind, routed.steps[2].kind, "the same payload, as the agent fetched it")
        XCTAssertEqual(own.device, "A")
        XCTAssertEqual(own.side, .continuing)

        // The originating side, on A: its agent served the payload to B, heard B continued it,
        // took B's streams and, once they ended, counted their bytes (the answer sent, the
        // request received); so did the app that holds the activity, in its own history.
        let eventOnA = try XCTUnwrap(watcherA.waitForInspectionEvent {
            if case .streamsEnded? = $0.continuation?.steps.last?.kind { true } else { false }
        }, watcherA.output)
        XCTAssertEqual(eventOnA.continuation?.side, .originating)
        XCTAssertNotNil(probeA.waitForLine(containing: "streamed 1000"), probeA.output)
        let onA = try inspect(socket("a.sock"))
        let served = try XCTUnwrap(onA.continuations.last, "A's agent's record")
        XCTAssertEqual(served.side, .originating)
        XCTAssertEqual(served.device, "B", "the continuing device")
        XCTAssertEqual(served.activityType, type)
        XCTAssertEqual(served.steps.map(\.kind), [.asked, .payloadServed(bytes: payloadBytes(own)), .wasContinuedReceived, .streamsOpened,
                                                  .streamsEnded(sent: 1000, received: "send 1000".utf8.count)])
        XCTAssertEqual(eventOnA.continuation?.steps.last?.kind, served.steps.last?.kind)
        let holder = try XCTUnwrap(onA.apps.first { $0.processID == probeA.processIdentifier }?.inspection, "A's app")
        let servedByApp = try XCTUnwrap(holder.continuations.last, "the app's own record")
        XCTAssertEqual(servedByApp.side, .originating)
        XCTAssertEqual(servedByApp.steps.map(\.kind), served.steps.map(\.kind))
        let textOnA = try runProduct("baton", ["inspect", "--agent", socket("a.sock")], timeout: 60)
        XCTAssertTrue(textOnA.stdout.contains("continuation \(served.id): \(type) 'Probe' served to B — continued there"), textOnA.stdout)
        XCTAssertTrue(textOnA.stdout.contains("payload served, \(payloadBytes(own)) bytes sent"), textOnA.stdout)
        XCTAssertTrue(textOnA.stdout.contains("streams ended, 1000 bytes sent, \("send 1000".utf8.count) received"), textOnA.stdout)
        watcherA.terminate()

        // An activity whose payload is too large: the fetch fails, with its code, on both sides.
        probeA.terminate()
        XCTAssertTrue(agentB.waitForWithdrawal(from: "A", type), agentB.output)
        _ = try probe(socket("a.sock"), ["--oversize"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", type, occurrence: 2), agentB.output)
        continued = try runProduct("baton", ["continue", "--agent", socket("b.sock")] + noConfig, timeout: 60)
        XCTAssertEqual(continued.status, 0, "the app took it: \(continued.stderr)")
        let failed = try XCTUnwrap(probeB.waitForLine(containing: "failed "), probeB.output)
        let code = try XCTUnwrap(Int(failed.split(separator: " ").last ?? ""), failed)
        XCTAssertEqual(code, CocoaError.userActivityHandoffUserInfoTooLarge.rawValue, failed)
        XCTAssertNotNil(watcher.waitForContinuationStep {
            if case .failed(CocoaError.userActivityHandoffUserInfoTooLarge.rawValue, _) = $0 { true } else { false }
        }, watcher.output)

        inspection = try inspect(socket("b.sock"))
        XCTAssertEqual(inspection.continuations.count, 2)
        routed = try XCTUnwrap(inspection.continuations.last)
        XCTAssertEqual(names(routed.steps), ["asked", "appJoined", "failed"])
        XCTAssertEqual(routed.failureCode, code)
        app = try XCTUnwrap(inspection.apps.first { $0.processID == probeB.processIdentifier }?.inspection)
        own = try XCTUnwrap(app.continuations.last)
        XCTAssertEqual(names(own.steps), ["asked", "willContinue", "failed"])
        XCTAssertEqual(own.failureCode, code)
        guard case .failed(_, let reason)? = own.steps.last?.kind else { return XCTFail("\(own)") }
        XCTAssertFalse(reason.isEmpty, "the cause in words")

        // The JSON as documented.
        let raw = try runProduct("baton", ["inspect", "--json", "--agent", socket("b.sock")], timeout: 60)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(raw.stdout.utf8)) as? [String: Any])
        try checkSchema(document)
        XCTAssertEqual((document["continuations"] as? [Any])?.count, 2)
        XCTAssertEqual((document["nearby"] as? [Any])?.count, 1, "A's activity, with its offer here")

        // As text: each step, with the code.
        let text = try runProduct("baton", ["inspect", "--agent", socket("b.sock")], timeout: 60)
        XCTAssertTrue(text.stdout.contains("continuation 2: \(type) 'Probe' from A — failed, code \(code)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("wasContinued sent"), text.stdout)
        XCTAssertTrue(text.stdout.contains("link: A at 127.0.0.1 (local network), since "), text.stdout)
        XCTAssertTrue(text.stdout.contains(" ms\n"), "the round trip: \(text.stdout)")
        _ = agentA
    }

    /// The bytes of the payload a continuing record says it fetched.
    private func payloadBytes(_ record: ContinuationRecord) -> Int {
        for step in record.steps { if case .payloadFetched(let bytes) = step.kind { return bytes } }
        return -1
    }

    /// A device the group revoked before it ever linked here: once it tries (its connection
    /// refused as revoked, named from the signed list), `baton why` and `baton inspect` say it is
    /// revoked — not "not linked", as a device of the list that is away is.
    func testADeviceRevokedBeforeItEverLinkedReadsAsRevoked() throws {
        let folders = try devices("A", "C", "D")
        let authority = try GroupAuthority.load(from: ConfigDirectory(url: root.appendingPathComponent("admin")))
        try authority.revokeDevice(named: "C").write(to: URL(fileURLWithPath: folders[0]).appendingPathComponent("revocations"), options: .atomic)
        let (agentA, address) = try isolatedAgent(folders[0], socket: socket("a.sock"))
        XCTAssertEqual(try why("C", socket("a.sock")).reason, "deviceNotLinked", "nothing of C seen yet")
        let (agentC, _) = try isolatedAgent(folders[1], socket: socket("c.sock"), peers: [address])
        XCTAssertTrue(agentA.waitFor(.refused(from: "C", reason: .revoked)), agentA.output)
        let answer = try why("C", socket("a.sock"))
        XCTAssertEqual(answer.reason, "deviceRevoked", answer.sentence)
        XCTAssertEqual(try why("D", socket("a.sock")).reason, "deviceNotLinked", "in the list, never seen")
        let inspection = try inspect(socket("a.sock"))
        XCTAssertEqual(inspection.revokedDevices, ["C"])
        XCTAssertEqual(inspection.device.links, [])
        let text = try runProduct("baton", ["inspect", "--agent", socket("a.sock")], timeout: 60)
        XCTAssertTrue(text.stdout.contains("revoked: C\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("not linked: D\n"), text.stdout)
        _ = agentC
    }

    /// A device the group revokes while linked: this device cuts its link (the trust code's
    /// decision, from the signed list) and `baton why` says it was revoked — not merely not
    /// linked, as a device of the list that is away is, nor unknown.
    func testWhyTellsARevokedDeviceFromOneNotLinkedAndAnUnknownOne() throws {
        let folders = try devices("A", "C", "D")
        let (agentA, address) = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let (agentC, _) = try isolatedAgent(folders[1], socket: socket("c.sock"), peers: [address])
        XCTAssertTrue(agentA.waitFor(.linked(peer: "C", dialed: false)), agentA.output)
        XCTAssertEqual(try why("C", socket("a.sock")).reason, "deviceLinked")

        let authority = try GroupAuthority.load(from: ConfigDirectory(url: root.appendingPathComponent("admin")))
        try authority.revokeDevice(named: "C").write(to: URL(fileURLWithPath: folders[0]).appendingPathComponent("revocations"), options: .atomic)
        XCTAssertTrue(agentA.waitFor(.unlinked(peer: "C", reason: .revoked)), agentA.output)
        let answer = try why("C", socket("a.sock"))
        XCTAssertEqual(answer.reason, "deviceRevoked", answer.sentence)
        XCTAssertEqual(try why("D", socket("a.sock")).reason, "deviceNotLinked", "in the list, never linked")
        XCTAssertEqual(try why("Z", socket("a.sock")).reason, "deviceUnknown")
        _ = agentC
    }

    /// An activity not eligible for handoff, or past its expiration date, is not advertised
    /// (about-handoff): the device that would offer it sees nothing, and the device that holds
    /// it says why.
    func testAnActivityNotEligibleOrExpiredIsExplainedOnTheDeviceThatHoldsIt() throws {
        let type = "com.example.probe.editing"
        let folders = try devices("A", "B")
        let (agentA, address) = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let (agentB, _) = try isolatedAgent(folders[1], socket: socket("b.sock"), peers: [address])
        let probeA = try probe(socket("a.sock"), ["--ok"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", type), agentB.output)

        probeA.send("ineligible")
        XCTAssertTrue(agentB.waitForWithdrawal(from: "A", type), agentB.output)
        XCTAssertEqual(try why(type, socket("a.sock")).reason, "notEligibleHere")
        XCTAssertEqual(try why(type, socket("b.sock")).reason, "notAdvertised")

        let second = try probe(socket("a.sock"), ["--ok"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", type, occurrence: 2), agentB.output)
        probeA.terminate()
        XCTAssertTrue(agentA.waitFor(.appLeft(appID: "com.example.probe", reason: nil)), agentA.output)
        second.send("expire")
        XCTAssertTrue(agentB.waitForWithdrawal(from: "A", type, occurrence: 2), agentB.output)
        let answer = try why(type, socket("a.sock"))
        XCTAssertEqual(answer.reason, "expiredHere", answer.sentence)
    }

    /// `baton inspect --watch --json`: the picture first, then the device's events as they
    /// happen, one JSON line each — here an app joining and leaving.
    func testWatchPrintsThePictureThenTheDevicesEventsAsJSONLines() throws {
        let folders = try devices("A")
        _ = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let watcher = try start("baton", ["inspect", "--watch", "--json", "--agent", socket("a.sock")])
        XCTAssertNotNil(watcher.watchedInspection(), watcher.output)
        let probe = try probe(socket("a.sock"), ["--ok"])
        let joined = try XCTUnwrap(watcher.waitForInspectionEvent {
            if case .appJoined? = $0.event { true } else { false }
        }, watcher.output)
        XCTAssertEqual(joined.event, .appJoined(appID: "com.example.probe", processID: probe.processIdentifier))
        probe.terminate()
        let left = try XCTUnwrap(watcher.waitForInspectionEvent {
            if case .appLeft? = $0.event { true } else { false }
        }, watcher.output)
        XCTAssertEqual(left.event, .appLeft(appID: "com.example.probe", reason: nil))
        XCTAssertTrue(watcher.isRunning, "it follows until interrupted")
    }

    /// While `baton inspect --watch` runs, a joined app's own changes reach it as events
    /// through the app's agent connection: its summary as the watch starts, then its current
    /// activity replaced; once nobody watches, the app is told to stop.
    func testWatchFollowsAnAppsOwnChangesThroughItsAgentConnection() throws {
        let folders = try devices("A")
        _ = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let probe = try probe(socket("a.sock"), ["--ok"])
        let watcher = try start("baton", ["inspect", "--watch", "--json", "--agent", socket("a.sock")])
        var change = try XCTUnwrap(watcher.waitForInspectionEvent {
            $0.app?.appID == "com.example.probe" && $0.app?.processID == probe.processIdentifier
        }?.app, watcher.output)
        XCTAssertEqual(change.summary.currentActivityTitle, "Probe")
        XCTAssertTrue(change.summary.isActive)
        probe.send("replace")
        change = try XCTUnwrap(watcher.waitForInspectionEvent { $0.app?.summary.currentActivityTitle == "Probe, replaced" }?.app,
                               watcher.output)
        XCTAssertEqual(change.appID, "com.example.probe")
        XCTAssertEqual(change.summary.currentActivityType, "com.example.probe.editing")

        // As text, in a second watcher.
        let text = try start("baton", ["inspect", "--watch", "--agent", socket("a.sock")])
        XCTAssertNotNil(text.waitForLine(containing: "app: com.example.probe"), text.output)
        XCTAssertNotNil(text.waitForLine(containing: "current activity: com.example.probe.editing"), text.output)
        probe.send("retitle Second")  // set without a notification: seen at the save that follows
        probe.send("touch")
        XCTAssertNotNil(text.waitForLine(containing: "app com.example.probe (pid \(probe.processIdentifier)): active,"), text.output)
        XCTAssertTrue(text.output.contains("current activity com.example.probe.editing 'Second'"), text.output)
    }

    /// Strings from another device or an app are escaped before they reach the terminal: a
    /// title with a terminal escape sequence is printed as a visible escape, on both devices.
    func testRemoteStringsArePrintedEscaped() throws {
        let type = "com.example.probe.editing"
        let folders = try devices("A", "B")
        let (_, address) = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let (agentB, _) = try isolatedAgent(folders[1], socket: socket("b.sock"), peers: [address])
        _ = try probe(socket("a.sock"), ["--ok", "--title", "Note\u{1B}[2J\u{202E}evil"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", type), agentB.output)
        for sock in ["a.sock", "b.sock"] {
            let text = try runProduct("baton", ["inspect", "--agent", socket(sock)], timeout: 60)
            XCTAssertEqual(text.status, 0, text.stderr)
            XCTAssertTrue(text.stdout.contains("Note\\u{1B}[2J\\u{202E}evil"), text.stdout)
            XCTAssertFalse(text.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, text.stdout)
        }
    }

    func testAnAppThatDoesNotAnswerIsReportedAndDoesNotHoldUpTheOthers() throws {
        let folders = try devices("A")
        _ = try isolatedAgent(folders[0], socket: socket("a.sock"))
        let answering = try probe(socket("a.sock"), ["--ok"])
        let silent = try RawAgentClient(socket: socket("a.sock"))
        try silent.joinAsSilentActiveApp("com.example.silent", offering: "com.example.silent.editing")

        let inspection = try inspect(socket("a.sock"))
        let silentReport = try XCTUnwrap(inspection.apps.first { $0.appID == "com.example.silent" })
        XCTAssertTrue(silentReport.didNotAnswer)
        XCTAssertNil(silentReport.inspection)
        let probeReport = try XCTUnwrap(inspection.apps.first { $0.processID == answering.processIdentifier })
        XCTAssertFalse(probeReport.didNotAnswer)
        XCTAssertEqual(probeReport.inspection?.currentActivity?.activityType, "com.example.probe.editing")
        withExtendedLifetime(silent) {}
    }
}
