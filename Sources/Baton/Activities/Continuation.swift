import Foundation
import Logging

/// The one entry point through which a continuation arrives, from the network, a launcher or
/// a test.
///
/// The order (implementing-handoff-in-your-app, "Receive User Activities in the Application
/// Delegate"; handoff-programming-guide, "Continuing an Activity"):
/// 1. `application(_:willContinueUserActivityWithType:)`, at once.
/// 2. The manifest is checked: same team, declared type (about-handoff, "Handoff
///    Interactions"). This is done before the payload is fetched, so an app never pulls data it
///    could not continue.
/// 3. The payload is fetched (bounded by `timeout`) and decoded, and its type must be the one
///    offered.
/// 4. Exactly one of `application(_:continue:restorationHandler:)` or
///    `application(_:didFailToContinueUserActivityWithType:error:)`. If `continue` returns
///    false or is not implemented and the activity is a document's, the document is opened and
///    restored (about-handoff, "Supporting a User Activity in Document-Based Apps"). If nobody
///    handles it, a notice is logged naming the likely cause (no delegate, a delegate whose
///    `continue` signature matches none of the accepted forms, or a `continue` that returned
///    false).
///
/// Nothing is sent when the delegate refused to finish launching (handoff-programming-guide,
/// "Continuing an Activity", note: the Handoff methods are not called when
/// `application(_:willFinishLaunchingWithOptions:)` or
/// `application(_:didFinishLaunchingWithOptions:)` returns false). Such a continuation is
/// dropped: its `completionHandler` runs, but not `whenContinued`, so the originating device
/// is never told the activity was continued and keeps it, as an Apple device does.
extension Application {
    /// The delegate to send Handoff messages to: nil once it refused to finish launching, so
    /// every path that would tell it about a continuation (a failure before any continuation
    /// started, too) tells nobody.
    var continuationDelegate: (any ApplicationDelegate)? { acceptsContinuation ? delegate : nil }

    /// Where an offered activity comes from.
    public struct ContinuationOrigin: Sendable, Equatable {
        /// The originating app's team; nil means this app's own team (a local continuation).
        public var teamIdentifier: String?
        /// The originating app's bundle identifier, if known.
        public var appID: String?
        /// The name of the originating device, if known.
        public var deviceName: String?

        /// An origin; all nil is a local continuation from this app's own team.
        public init(teamIdentifier: String? = nil, appID: String? = nil, deviceName: String? = nil) {
            self.teamIdentifier = teamIdentifier
            self.appID = appID
            self.deviceName = deviceName
        }
    }

    /// How long a continuation may wait for its payload by default.
    nonisolated public static let defaultContinuationTimeout: Duration = .seconds(30)

    /// Continues an activity of `type` whose payload `fetchingPayload` gets. See the extension's
    /// description for the sequence. Failures end in `didFailToContinue…` with a `CocoaError`:
    /// `.userActivityRemoteApplicationTimedOut` after `timeout`, `.userActivityConnectionUnavailable`
    /// when the fetch cannot reach the other side, `.userActivityHandoffUserInfoTooLarge` for an
    /// oversized payload, `.userActivityHandoffFailed` otherwise (its `NSUnderlyingErrorKey` says
    /// why).
    ///
    /// `whenContinued` runs after the delegate's `continue` returned true (or the document
    /// fallback opened the document): the network uses it to tell the originating device, and
    /// the continuation finishes when it returns. `openingStreams`, if given, is how the
    /// continued activity's `getContinuationStreams(completionHandler:)` reaches the
    /// originating activity. `completionHandler` runs once the continuation has finished, either
    /// way: after `didFailToContinue…`, or after `continue` and `whenContinued`.
    ///
    /// `fetchingPayload` runs on the main actor, as the continuation does: a fetch that waits
    /// on the loop (a network call) starts and resumes on the loop's thread, without a round
    /// trip through Swift's global executor on each side of the wait.
    public func continueUserActivity(
        ofType type: String, title: String? = nil, from origin: ContinuationOrigin = ContinuationOrigin(),
        timeout: Duration = Application.defaultContinuationTimeout,
        whenContinued: (@MainActor () async -> Void)? = nil,
        openingStreams: (@MainActor () async throws -> any ContinuationStreamChannel)? = nil,
        completionHandler: (@MainActor () -> Void)? = nil,
        fetchingPayload: @escaping @MainActor () async throws -> Data
    ) {
        guard acceptsContinuation else {
            Logger(label: "baton").notice("continuation of \(type) dropped: the delegate refused to finish launching")
            completionHandler?()
            return
        }
        let record = continuationHistory.begin(activityType: type, title: title, device: origin.deviceName)
        let continuation = PendingContinuation(type: type, record: record, whenContinued: whenContinued, completionHandler: completionHandler)
        _ = delegate?.application(self, willContinueUserActivityWithType: type)
        continuationHistory.record(.willContinue, in: record)

        guard let manifest else {
            return continuation.fail(.userActivityHandoffFailed, "this app has no manifest, so it declares no activity types")
        }
        let team = origin.teamIdentifier ?? manifest.teamIdentifier
        guard manifest.canContinue(activityType: type, fromTeam: team) else {
            let reason = team == manifest.teamIdentifier
                ? "\(manifest.appID) does not declare the activity type \(type)"
                : "the activity comes from team \(team), not \(manifest.teamIdentifier)"
            return continuation.fail(.userActivityHandoffFailed, reason)
        }

        continuation.timer = MainLoop.after(timeout) {
            continuation.fetch?.cancel()
            continuation.fail(.userActivityRemoteApplicationTimedOut, "no payload within \(timeout)")
        }
        continuation.fetch = Task { @MainActor in
            let outcome: Result<Data, Error>
            do { outcome = .success(try await fetchingPayload()) } catch { outcome = .failure(error) }
            guard !continuation.isFinished else { return }
            switch outcome {
            case .failure(let error):
                let reason = switch error {
                case is CocoaError: "\(error)"
                case is CancellationError: "the fetch was cancelled"
                default: "the payload could not be fetched: \(error)"
                }
                continuation.fail(HandoffFailure.code(for: error), reason, underlying: error)
            case .success(let data):
                Application.shared.continuationHistory.record(.payloadFetched(bytes: data.count), in: continuation.record)
                do {
                    let activity = try UserActivity(payload: data)
                    activity.streamOpener = openingStreams
                    guard activity.activityType == type else {
                        return continuation.fail(.userActivityHandoffFailed,
                                                 "offered \(type) but the payload is \(activity.activityType)")
                    }
                    if type == UserActivity.browsingWebType {
                        try await Application.confirmWebClaim(of: activity, by: manifest)
                        guard !continuation.isFinished else { return }
                    }
                    await continuation.succeed(with: activity)
                } catch let error as CocoaError {
                    continuation.fail(error.code, error.localizedDescription, underlying: error)
                } catch {
                    continuation.fail(HandoffFailure.code(for: error), "\(error)", underlying: error)
                }
            }
        }
    }

    /// Web-to-app handoff (handoff-programming-guide, "Web Browser-to-Native App Handoff"): a
    /// browsing activity continues in this app only if the app claims the page's domain and
    /// the domain's associated-domain file lists the app. The app gets the `webpageURL` and an
    /// empty `userInfo` (the browser's data is not for it).
    static func confirmWebClaim(of activity: UserActivity, by manifest: AppManifest) async throws {
        guard let url = activity.webpageURL, let domain = manifest.claimedDomain(for: url) else {
            throw handoffError(.userActivityHandoffFailed,
                               "\(manifest.appID) does not claim \(activity.webpageURL?.host ?? "the page")'s domain for activity continuation")
        }
        guard let verifier = Application.shared.associatedDomainVerifier else {
            throw handoffError(.userActivityHandoffFailed, "no associated-domain verifier runs in this app to confirm \(domain)")
        }
        do {
            guard try await verifier.verify(domain, lists: manifest.appIdentifier) else {
                throw handoffError(.userActivityHandoffFailed, "\(domain) does not list \(manifest.appIdentifier) for activity continuation")
            }
        } catch let error as CocoaError {
            throw error
        } catch {
            throw handoffError(.userActivityHandoffFailed, "cannot confirm \(domain)'s claim: \(error)", underlying: error)
        }
        activity.userInfo = [:]
    }

    /// Whether `activity` is a document's: its type is a document type's
    /// `NSUbiquitousDocumentUserActivityType` in the manifest and it carries the document's URL.
    func documentURL(ofContinued activity: UserActivity) -> URL? {
        guard manifest?.documentTypes.contains(where: { $0.activityType == activity.activityType }) == true else { return nil }
        return activity.userInfo?[UserActivity.documentURLKey] as? URL
    }

    /// `continue` declined: a document's activity opens its document through
    /// `DocumentController.shared.openDocument(withContentsOf:display:completionHandler:)` (so
    /// a subclass's override is used) and restores it. Returns whether it did; a document that
    /// cannot be opened ends in `didFailToContinue…`.
    func continueAsDocument(_ activity: UserActivity, at url: URL) async -> Bool {
        let (document, error) = await withLoopContinuation { (done: CheckedContinuation<(Document?, (any Error)?), Never>) in
            DocumentController.shared.openDocument(withContentsOf: url, display: true) { document, _, error in
                done.resume(returning: (document, error))
            }
        }
        if let document {
            document.restoreUserActivityState(activity)
            return true
        }
        let reason = error.map { "cannot open \(url.path): \($0)" } ?? "cannot open \(url.path)"
        delegate?.application(self, didFailToContinueUserActivityWithType: activity.activityType,
                              error: Application.handoffError(.userActivityHandoffFailed, reason, underlying: error))
        return false
    }

    /// Logs that nobody handled a continued activity, naming the likely cause: no delegate, a
    /// delegate method whose signature is none of the accepted forms (so it is not called), or
    /// a delegate that returned false.
    func logUnhandledContinuation(of activity: UserActivity, noFormImplemented: Bool) {
        let cause: String = if delegate == nil {
            "the application has no delegate"
        } else if noFormImplemented {
            "the application delegate implements no application(_:continue:restorationHandler:) that Baton calls; "
                + "if it has one, its signature does not match (so it is not the protocol's method). Accepted: "
                + UnansweredContinuation.acceptedSignatures
        } else {
            "the application delegate's application(_:continue:restorationHandler:) returned false"
        }
        Logger(label: "baton").notice("continuation of \(activity.activityType) was handled by nobody: \(cause)",
                                      metadata: ["activityType": "\(activity.activityType)"])
    }

    static func handoffError(_ code: CocoaError.Code, _ reason: String, underlying: Error? = nil) -> CocoaError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: reason]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return CocoaError(code, userInfo: info)
    }
}

/// One continuation in flight: it ends exactly once, in success or failure.
@MainActor
private final class PendingContinuation {
    let type: String
    /// Its record in `Application.continuationHistory`.
    let record: UInt64
    let whenContinued: (@MainActor () async -> Void)?
    let completionHandler: (@MainActor () -> Void)?
    var timer: LoopSource?
    var fetch: Task<Void, Never>?
    private(set) var isFinished = false

    init(type: String, record: UInt64, whenContinued: (@MainActor () async -> Void)?, completionHandler: (@MainActor () -> Void)?) {
        self.type = type
        self.record = record
        self.whenContinued = whenContinued
        self.completionHandler = completionHandler
    }

    func fail(_ code: CocoaError.Code, _ reason: String, underlying: Error? = nil) {
        guard finish() else { return }
        let app = Application.shared
        app.continuationHistory.record(.failed(code: code.rawValue, reason: reason), in: record)
        app.delegate?.application(app, didFailToContinueUserActivityWithType: type,
                                  error: Application.handoffError(code, reason, underlying: underlying))
        completionHandler?()
    }

    /// The delegate continues `activity`; once it has (or the document fallback has), the
    /// originating side is told through `whenContinued` before the continuation finishes.
    func succeed(with activity: UserActivity) async {
        guard finish() else { return }
        let app = Application.shared
        let restore: @MainActor ([any UserActivityRestoring]) -> Void = { objects in
            for object in objects { object.restoreUserActivityState(activity) }
        }
        app.continuationReachedBottomDefault = false
        let handled = app.delegate?.application(app, continue: activity, restorationHandler: restore) ?? false
        let noFormImplemented = app.continuationReachedBottomDefault
        app.continuationReachedBottomDefault = false
        let history = app.continuationHistory
        if handled {
            history.record(.continued, in: record)
            await tellOrigin()
        } else if let url = app.documentURL(ofContinued: activity) {
            if await app.continueAsDocument(activity, at: url) {
                history.record(.continued, in: record)
                await tellOrigin()
            } else {
                history.record(.failed(code: CocoaError.userActivityHandoffFailed.rawValue, reason: "cannot open the document"), in: record)
            }
        } else {
            history.record(.failed(code: CocoaError.userActivityHandoffFailed.rawValue, reason: "handled by nobody"), in: record)
            app.logUnhandledContinuation(of: activity, noFormImplemented: noFormImplemented)
        }
        completionHandler?()
    }

    /// `whenContinued`, recorded as `wasContinuedSent` (a local continuation has none).
    private func tellOrigin() async {
        guard let whenContinued else { return }
        await whenContinued()
        Application.shared.continuationHistory.record(.wasContinuedSent, in: record)
    }

    private func finish() -> Bool {
        guard !isFinished else { return false }
        isFinished = true
        timer?.cancel()
        return true
    }
}
