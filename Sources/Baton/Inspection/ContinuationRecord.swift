import Foundation

/// One continuation as it went, step by step with each step's time: kept by the app that
/// continues an activity and by the agent that routes it (`ContinuationHistory`), shown by
/// `baton inspect`, its `--watch` timeline and the GTK Inspector page (docs/INSPECT.md).
///
/// The steps follow Apple's order (handoff-programming-guide, "Continuing an Activity"):
/// asked, the app launched or joined, `willContinue`, the payload fetched, then exactly one of
/// `continue` or `didFail` (with its `CocoaError` code and the cause in words), and, once
/// continued, the originating device told (`wasContinued` sent); streams opened and their
/// bytes after that.
///
/// The originating side keeps a record too (`side` `.originating`): the continuing device
/// asked for the payload, it was served (`payloadServed`, its bytes) or not (`failed`), and the
/// continuing device said it continued it, so the activity's delegate was told
/// (`wasContinuedReceived`, Apple's `userActivityWasContinued(_:)`); then, with streams, they
/// were opened (`streamsOpened`) and ended with the bytes each way (`streamsEnded`).
/// Strings in it may come from another device or an app: escape them
/// (`PrintableText.escaped`) before printing.
public struct ContinuationRecord: Codable, Sendable, Equatable {
    /// Which end of the continuation a record is kept by.
    public enum Side: String, Codable, Sendable, Equatable {
        /// The device (app or agent) that continues another device's activity.
        case continuing
        /// The device whose activity another device continues: it serves the payload and hears
        /// it was continued.
        case originating
    }

    /// The record's number in its history, from 1 (unique in one process).
    public var id: UInt64
    /// The activity type continued.
    public var activityType: String
    /// Its title as offered, if any.
    public var title: String?
    /// The other device's name, when known: the originating device in a continuing record, the
    /// continuing device in an originating one.
    public var device: String?
    /// The advertisement's sequence number on the originating device, when known (the agent's
    /// and an embedded node's records; in an app behind an agent, its own advertisement's id).
    public var sequence: UInt64?
    /// Which end of the continuation keeps this record (`.continuing` in a record written
    /// before originating records existed).
    public var side: Side
    /// The steps in the order they happened (at most `ContinuationHistory.maximumSteps`).
    public var steps: [ContinuationStep]
    /// Steps left out past `ContinuationHistory.maximumSteps`.
    public var droppedSteps: Int

    /// A record with these facts.
    public init(id: UInt64, activityType: String, title: String? = nil, device: String? = nil, sequence: UInt64? = nil,
                side: Side = .continuing, steps: [ContinuationStep] = [], droppedSteps: Int = 0) {
        self.id = id
        self.side = side
        self.activityType = activityType
        self.title = title
        self.device = device
        self.sequence = sequence
        self.steps = steps
        self.droppedSteps = droppedSteps
    }

    private enum CodingKeys: String, CodingKey { case id, activityType, title, device, sequence, side, steps, droppedSteps }

    /// Reads a record; one without `side` is a continuing one. A step of a kind this version
    /// does not know (from a newer app or agent) is left out and counted in `droppedSteps`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UInt64.self, forKey: .id)
        activityType = try c.decode(String.self, forKey: .activityType)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        device = try c.decodeIfPresent(String.self, forKey: .device)
        sequence = try c.decodeIfPresent(UInt64.self, forKey: .sequence)
        side = try c.decodeIfPresent(Side.self, forKey: .side) ?? .continuing
        let read = try c.decode([KnownStep].self, forKey: .steps)
        steps = read.compactMap(\.step)
        droppedSteps = try c.decode(Int.self, forKey: .droppedSteps) + read.count - steps.count
    }

    /// A step, or nil for one of a kind not known here.
    private struct KnownStep: Decodable {
        let step: ContinuationStep?
        init(from decoder: any Decoder) throws { step = try? ContinuationStep(from: decoder) }
    }

    /// Whether the continuation has ended: it failed, or the originating device was told it
    /// was continued, or (on the originating side) its delegate was told (streams may still follow).
    public var isFinished: Bool { steps.contains { $0.kind.ends } }

    /// The failure step's code, when it failed.
    public var failureCode: Int? {
        for step in steps { if case .failed(let code, _) = step.kind { return code } }
        return nil
    }
}

/// One step of a continuation and when it happened.
public struct ContinuationStep: Codable, Sendable, Equatable {
    /// When it happened.
    public var time: Date
    /// What happened.
    public var kind: Kind

    /// A step of `kind` at `time`.
    public init(_ kind: Kind, at time: Date = Date()) {
        self.time = time
        self.kind = kind
    }

    /// What happened, encoded as `{"case": {fields}}` (docs/INSPECT.md).
    public enum Kind: Codable, Sendable, Equatable {
        /// The continuation was asked for (`baton continue`, a notification, the app's own
        /// `continueNearbyActivity`, or a continuation handed to the app).
        case asked
        /// The agent started the installed app `appID` to take it.
        case appLaunched(appID: String)
        /// The agent handed it to the joined app `appID` (running, or just launched and joined).
        case appJoined(appID: String)
        /// No app here continues it: the browser opened its web page.
        case openedInBrowser(url: String)
        /// `application(_:willContinueUserActivityWithType:)` was called.
        case willContinue
        /// The payload arrived from the originating device: `bytes` long.
        case payloadFetched(bytes: Int)
        /// Originating side: the payload, saved first, was sent to the continuing device:
        /// `bytes` long.
        case payloadServed(bytes: Int)
        /// `application(_:continue:restorationHandler:)` continued it (or the document
        /// fallback opened the document).
        case continued
        /// It failed: `application(_:didFailToContinueUserActivityWithType:error:)` with the
        /// `CocoaError` code `code` (4608–4611, or 3072 cancelled), and the cause in words.
        case failed(code: Int, reason: String)
        /// The originating device was told it was continued (`userActivityWasContinued` there).
        case wasContinuedSent
        /// Originating side: the continuing device said it continued the activity, and the
        /// activity's delegate was told (`userActivityWasContinued(_:)`).
        case wasContinuedReceived
        /// Continuation streams were opened between the two apps.
        case streamsOpened
        /// The streams ended: `sent` bytes from this side toward the other, `received` from
        /// it. On the continuing side that is toward the originating app and from it; on the
        /// originating side (its agent, an app behind it, an app with its own node), toward
        /// the continuing app and from it.
        case streamsEnded(sent: Int, received: Int)

        /// Whether the continuation ends with this step.
        public var ends: Bool {
            switch self {
            case .failed, .wasContinuedSent, .wasContinuedReceived: true
            default: false
            }
        }

        /// The step in words (remote strings not yet escaped).
        public var words: String {
            switch self {
            case .asked: "asked"
            case .appLaunched(let appID): "launched \(appID)"
            case .appJoined(let appID): "handed to \(appID)"
            case .openedInBrowser(let url): "opened \(url) in the browser"
            case .willContinue: "willContinue"
            case .payloadFetched(let bytes): "payload fetched, \(bytes) bytes"
            case .payloadServed(let bytes): "payload served, \(bytes) bytes sent"
            case .continued: "continue"
            case .failed(let code, let reason): "didFail, code \(code): \(reason)"
            case .wasContinuedSent: "wasContinued sent"
            case .wasContinuedReceived: "continued there: userActivityWasContinued told"
            case .streamsOpened: "streams opened"
            case .streamsEnded(let sent, let received): "streams ended, \(sent) bytes sent, \(received) received"
            }
        }
    }
}
