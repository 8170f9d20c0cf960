import Baton
import Foundation

/// Layer 3: needsSave, the current activity on window changes, and payload coding.
@MainActor
enum ActivityBenchmarks {
    // MARK: needsSave

    final class PlainFlag { var needsSave = false }

    final class SavingController: ViewController {
        var saves = 0
        override func updateUserActivityState(_ activity: UserActivity) { saves += 1 }
    }

    static let sets = 1_000_000

    /// `needsSave = true`, a million times in one loop turn; returns ns per set and the saves made.
    static func needsSave() -> (nanos: Double, saves: Int) {
        let activity = UserActivity(activityType: "com.example.bench")
        let controller = SavingController()
        controller.userActivity = activity
        let start = ContinuousClock.now
        for _ in 0..<sets { activity.needsSave = true }
        let nanos = nanosPerOp(ContinuousClock.now - start, sets)
        var done = false
        MainLoop.idle(priority: LoopPriority(LoopPriority.low.rawValue + 100)) { done = true }
        MainLoop.run(until: { done }, timeout: .seconds(60))
        controller.userActivity = nil
        return (nanos, controller.saves)
    }

    /// The floor: storing a plain Bool in a class, as many times.
    static func plainBool() -> Double {
        let flag = PlainFlag()
        let start = ContinuousClock.now
        for i in 0..<sets { store(i & 1 == 0 || true, in: flag) }
        precondition(flag.needsSave)
        return nanosPerOp(ContinuousClock.now - start, sets)
    }

    @inline(never) static func store(_ value: Bool, in flag: PlainFlag) { flag.needsSave = value }

    // MARK: Window changes

    static let switches = 2_000
    static let chainDepth = 50

    /// Switching the main window back and forth among `count` windows, each with a 50-deep
    /// chain whose deepest responder is first responder and whose controller holds an activity.
    static func windowSwitch(among count: Int) -> Double {
        Application.shared.activate()
        var windows: [Window] = []
        for index in 0..<count { windows.append(makeDeepWindow(index)) }
        let a = windows[0], b = windows[count - 1]
        a.makeKeyAndOrderFront(nil)
        let start = ContinuousClock.now
        for i in 0..<switches {
            (i.isMultiple(of: 2) ? b : a).makeKeyAndOrderFront(nil)
        }
        let nanos = nanosPerOp(ContinuousClock.now - start, switches)
        precondition(Application.shared.currentUserActivity === a.contentViewController?.userActivity)
        for window in windows { window.close() }
        return nanos
    }

    private static func makeDeepWindow(_ index: Int) -> Window {
        let controller = ViewController(title: "doc \(index)")
        controller.userActivity = UserActivity(activityType: "com.example.doc")
        let window = Window(title: "doc \(index)", contentViewController: controller)
        var parent = controller.view
        for _ in 0..<chainDepth - 4 {  // + controller + window + app = chainDepth
            let child = ChainBenchmarks.FocusableView()
            parent.addSubview(child)
            parent = child
        }
        window.orderFront(nil)
        window.makeFirstResponder(parent)
        return window
    }

    // MARK: Payloads

    /// A userInfo of about 3 KB: strings, numbers, a date, a URL, a list and a nested dictionary.
    static func threeKilobyteUserInfo() -> [String: Any] {
        var info: [String: Any] = [:]
        for i in 0..<34 { info["field-\(i)"] = "value number \(i) of the activity" }
        for i in 0..<20 { info["count-\(i)"] = i * 1000 }
        info["scroll"] = 0.4375
        info["opened"] = Date(timeIntervalSince1970: 1_700_000_000)
        info["page"] = URL(string: "https://example.com/articles/handoff-on-linux?page=3")!
        info["tags"] = ["linux", "glib", "swift", "handoff"]
        info["selection"] = ["start": 120, "end": 480, "kind": "word"] as [String: Any]
        return info
    }

    static let codings = 2_000

    static func payloadCoding() -> (encode: Double, decode: Double, bytes: Int) {
        let activity = UserActivity(activityType: "com.example.reader.reading")
        activity.userInfo = threeKilobyteUserInfo()
        let keys = threeKilobyteUserInfo().count
        var data = Data()
        let encodeStart = ContinuousClock.now
        for _ in 0..<codings { data = try! activity.encodedPayload() }
        let encode = nanosPerOp(ContinuousClock.now - encodeStart, codings)
        let decodeStart = ContinuousClock.now
        for _ in 0..<codings { precondition(try! UserActivity(payload: data).userInfo?.count == keys) }
        let decode = nanosPerOp(ContinuousClock.now - decodeStart, codings)
        return (encode, decode, data.count)
    }

    /// The same dictionary as a binary property list, made and read by Foundation.
    static func propertyListCoding() -> (encode: Double, decode: Double, bytes: Int) {
        let info = threeKilobyteUserInfo().mapValues { ($0 as? URL)?.absoluteString ?? $0 }  // plists hold no URL
        let keys = info.count
        var data = Data()
        let encodeStart = ContinuousClock.now
        for _ in 0..<codings { data = try! PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0) }
        let encode = nanosPerOp(ContinuousClock.now - encodeStart, codings)
        let decodeStart = ContinuousClock.now
        for _ in 0..<codings {
            precondition((try! PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])?.count == keys)
        }
        let decode = nanosPerOp(ContinuousClock.now - decodeStart, codings)
        return (encode, decode, data.count)
    }

    /// The payload coding rows, each the median of five runs, beside a binary plist of the same
    /// dictionary made and read in the same runs (`--coding`).
    static func codingFigures() -> [Figure] {
        var runs: [(coding: (encode: Double, decode: Double, bytes: Int), plist: (encode: Double, decode: Double, bytes: Int))] = []
        for _ in 0..<5 { runs.append((payloadCoding(), propertyListCoding())) }
        func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let coding = runs.last!.coding, plist = runs.last!.plist
        return [
            Figure(name: "encode 3 KB userInfo (GVariant)", value: middle(runs.map(\.coding.encode)) / 1000,
                   baselineName: "binary plist (Foundation)", baseline: middle(runs.map(\.plist.encode)) / 1000, unit: "µs",
                   aim: "aim < 20 µs"),
            Figure(name: "decode 3 KB userInfo (GVariant)", value: middle(runs.map(\.coding.decode)) / 1000,
                   baselineName: "binary plist (Foundation)", baseline: middle(runs.map(\.plist.decode)) / 1000, unit: "µs",
                   aim: "aim < 20 µs"),
            Figure(name: "payload bytes", value: Double(coding.bytes), baselineName: "binary plist bytes",
                   baseline: Double(plist.bytes), unit: "B", aim: ""),
        ]
    }
}
