import Foundation

/// The continuations of one process, live and the last `capacity` (a capped ring, oldest
/// dropped first), each a `ContinuationRecord` written by the code that decides its steps.
/// The app's is `Application.continuationHistory`; the agent keeps its own.
///
/// Recording a step costs an append and a clock read: no scan, no copy of the record, no
/// notification while nobody observes. Observers (`observe(_:)`, and the app's inspection
/// observers, which use it) are called at once, with the record as it is after the step.
@MainActor
public final class ContinuationHistory {
    /// How many records are kept.
    public static let capacity = 50
    /// How many steps one record keeps; more are counted in `droppedSteps`.
    public static let maximumSteps = 32
    /// The longest reason kept in a `failed` step, in bytes of UTF-8.
    public static let maximumReason = 512
    /// Posted (object: the history) after each step recorded while the history is observed
    /// (`observe(_:)`; an `Application.observeInspection(_:)` observer observes the app's): a
    /// post costs microseconds even with no observer, so a history nobody follows posts none.
    /// Follow a history with `observe(_:)`.
    public static let didChangeNotification = Notification.Name("BatonContinuationHistoryDidChange")

    /// The records, oldest first, at most `capacity`. Their ids run on without a gap (each
    /// `begin` takes the next), so a record is found by its id at once, not by a scan.
    public private(set) var records: [ContinuationRecord] = []
    private var lastID: UInt64 = 0
    private var observers: [Int: @MainActor (ContinuationRecord) -> Void] = [:]
    private var lastObserver = 0

    /// An empty history.
    public init() {}

    /// Forgets every record (a test's fresh application); observers stay.
    func removeAll() { records = [] }

    /// Starts a record of a continuation of `activityType` (its first step `asked`) and
    /// returns its id.
    @discardableResult
    public func begin(activityType: String, title: String? = nil, device: String? = nil, sequence: UInt64? = nil,
                      side: ContinuationRecord.Side = .continuing) -> UInt64 {
        lastID += 1
        if records.count >= Self.capacity { records.removeFirst(records.count - Self.capacity + 1) }
        var made = ContinuationRecord(id: lastID, activityType: activityType, title: title, device: device, sequence: sequence, side: side)
        made.steps.reserveCapacity(Self.usualSteps)
        records.append(made)
        record(.asked, in: lastID)
        return lastID
    }

    /// How many steps a continuation usually takes (asked to `wasContinuedSent`, or the
    /// originating side's four): room for them is made with the record, not step by step.
    private static let usualSteps = 8

    /// Where the record `id` is in `records`, if it is still there.
    private func index(of id: UInt64) -> Int? {
        guard let first = records.first?.id, id >= first, id - first < UInt64(records.count) else { return nil }
        return Int(id - first)
    }

    /// Adds `kind`, now, to the record `id` (nothing if it has left the history).
    public func record(_ kind: ContinuationStep.Kind, in id: UInt64) {
        guard let index = index(of: id) else { return }
        guard records[index].steps.count < Self.maximumSteps else { return records[index].droppedSteps += 1 }
        if case .failed(let code, let reason) = kind, reason.utf8.count > Self.maximumReason {
            records[index].steps.append(ContinuationStep(.failed(code: code, reason: String(decoding: reason.utf8.prefix(Self.maximumReason), as: UTF8.self))))
        } else {
            records[index].steps.append(ContinuationStep(kind))
        }
        guard !observers.isEmpty else { return }
        let record = records[index]
        for observer in observers.values { observer(record) }
        NotificationCenter.default.post(name: Self.didChangeNotification, object: self)
    }

    /// The record the next step of continuing `activity` goes in: the newest record of it not
    /// finished (with `streams`, finished or not), else a new one begun for it.
    public func record(of activity: NearbyActivity, streams: Bool = false) -> UInt64 {
        if let record = records.last(where: { $0.side == .continuing && $0.device == activity.device && $0.sequence == activity.sequence }),
           streams || !record.isFinished {
            return record.id
        }
        return begin(activityType: activity.activityType, title: activity.title, device: activity.device, sequence: activity.sequence)
    }

    /// The record the next step of serving this device's own activity (`activityType`,
    /// advertised as `sequence`) to `device` goes in, on the originating side: the newest
    /// originating record of it not finished (with `streams`, finished or not), else a new one
    /// begun for it (its first step `asked`: the continuing device asked for the payload).
    public func originatingRecord(activityType: String, title: String?, device: String?, sequence: UInt64?, streams: Bool = false) -> UInt64 {
        if let record = records.last(where: { $0.side == .originating && $0.device == device && $0.sequence == sequence
                                              && $0.activityType == activityType }),
           streams || !record.isFinished {
            return record.id
        }
        return begin(activityType: activityType, title: title, device: device, sequence: sequence, side: .originating)
    }

    /// Calls `handler` with the record after each step, until the observation is cancelled or
    /// released.
    public func observe(_ handler: @escaping @MainActor (ContinuationRecord) -> Void) -> InspectionObservation {
        lastObserver += 1
        let id = lastObserver
        observers[id] = handler
        return InspectionObservation { [weak self] in self?.observers[id] = nil }
    }
}
