import BatonLoop
import CGLib
import Foundation

/// A failure that says itself which Handoff code it stands for (a peer that broke the
/// protocol, for one); `HandoffFailure.code(for:)` takes it from here.
package protocol HandoffCoded: Error {
    var handoffCode: CocoaError.Code { get }
}

/// The one mapping between Baton's failures and Handoff's error codes (the `CocoaError` codes
/// `application(_:didFailToContinueUserActivityWithType:error:)` receives), and between those
/// codes and the D-Bus error names Baton's interfaces answer with (`org.baton.Device1` between
/// devices, `org.baton.Agent1` and `org.baton.App1` between an app and its agent).
///
/// Every code is decided from an error's type — a D-Bus error name, a GIO error code, a
/// Swift error type — never from its message's text.
package enum HandoffFailure {
    /// The codes a continuation can fail with.
    package static let codes: Set<CocoaError.Code> = [
        .userActivityHandoffFailed, .userActivityConnectionUnavailable, .userActivityRemoteApplicationTimedOut,
        .userActivityHandoffUserInfoTooLarge, .featureUnsupported,
    ]

    /// The error names a device answers `org.baton.Device1` calls with (docs/PROTOCOL.md).
    package enum DeviceErrorName: String, CaseIterable, Sendable {
        /// The activity asked for is no longer the one advertised.
        case notCurrent = "org.baton.Error.NotCurrent"
        /// The payload is over the limit.
        case tooLarge = "org.baton.Error.TooLarge"
        case failed = "org.baton.Error.Failed"
        /// The activity offers no continuation streams.
        case noStreams = "org.baton.Error.NoStreams"
        /// The caller may not have this: its certificate is revoked, or it never fetched the
        /// sequence it says it continued.
        case refused = "org.baton.Error.Refused"

        package var code: CocoaError.Code {
            switch self {
            case .noStreams: .featureUnsupported
            case .tooLarge: .userActivityHandoffUserInfoTooLarge
            case .notCurrent, .failed, .refused: .userActivityHandoffFailed
            }
        }
    }

    /// The error names the agent answers `org.baton.Agent1` calls with. Each Handoff code has
    /// its own, so the app gets the code the agent saw.
    package enum AgentErrorName: String, CaseIterable, Sendable {
        case connectionUnavailable = "org.baton.Agent1.Error.ConnectionUnavailable"
        case handoffFailed = "org.baton.Agent1.Error.HandoffFailed"
        case tooLarge = "org.baton.Agent1.Error.TooLarge"
        case timedOut = "org.baton.Agent1.Error.TimedOut"
        case unsupported = "org.baton.Agent1.Error.Unsupported"
        /// A call other than `Join` before `Join`, or a second `Join`.
        case notJoined = "org.baton.Agent1.Error.NotJoined"
        /// Past a cap (pending calls), or bad arguments.
        case refused = "org.baton.Agent1.Error.Refused"

        /// The name that carries `code` (`handoffFailed` for a code that is not a Handoff one).
        package init(_ code: CocoaError.Code) {
            self = switch code {
            case .userActivityConnectionUnavailable: .connectionUnavailable
            case .userActivityHandoffUserInfoTooLarge: .tooLarge
            case .userActivityRemoteApplicationTimedOut: .timedOut
            case .featureUnsupported: .unsupported
            default: .handoffFailed
            }
        }

        package var code: CocoaError.Code {
            switch self {
            case .connectionUnavailable: .userActivityConnectionUnavailable
            case .tooLarge: .userActivityHandoffUserInfoTooLarge
            case .timedOut: .userActivityRemoteApplicationTimedOut
            case .unsupported: .featureUnsupported
            case .handoffFailed, .notJoined, .refused: .userActivityHandoffFailed
            }
        }
    }

    /// The error names an app answers the agent's `org.baton.App1` calls with.
    package enum AppErrorName: String, CaseIterable, Sendable {
        /// The activity asked for is no longer the one advertised.
        case notCurrent = "org.baton.App1.Error.NotCurrent"
        case tooLarge = "org.baton.App1.Error.TooLarge"
        case failed = "org.baton.App1.Error.Failed"

        package var code: CocoaError.Code {
            switch self {
            case .tooLarge: .userActivityHandoffUserInfoTooLarge
            case .notCurrent, .failed: .userActivityHandoffFailed
            }
        }
    }

    /// The code a D-Bus error answered by the other side stands for: one of the names above,
    /// or `.userActivityHandoffFailed` for any other (it answered, but not with these).
    package static func code(forErrorName name: String) -> CocoaError.Code {
        if let device = DeviceErrorName(rawValue: name) { return device.code }
        if let agent = AgentErrorName(rawValue: name) { return agent.code }
        if let app = AppErrorName(rawValue: name) { return app.code }
        return .userActivityHandoffFailed
    }

    /// The Handoff code for `error`, by its type:
    /// - a `CocoaError` of a Handoff code keeps it;
    /// - a `GLibError` from a D-Bus call: the remote error's name (`code(forErrorName:)`); else
    ///   GIO's timeout is `.userActivityRemoteApplicationTimedOut`, a reply of the wrong type
    ///   (`G_IO_ERROR_INVALID_ARGUMENT`) `.userActivityHandoffFailed`, and anything else (a
    ///   link closed, refused, unreachable) `.userActivityConnectionUnavailable`;
    /// - a payload over the limit (`UserActivityError.payloadTooLarge`) is
    ///   `.userActivityHandoffUserInfoTooLarge`, any other malformed payload
    ///   (`UserActivityError`, `VariantError`) or broken protocol (`HandoffCoded`) says its own,
    ///   `.userActivityHandoffFailed` for those;
    /// - a cancelled wait is `.userActivityHandoffFailed`;
    /// - anything else is `.userActivityConnectionUnavailable` (the other side could not be reached).
    package static func code(for error: any Error) -> CocoaError.Code {
        switch error {
        case let error as CocoaError where codes.contains(error.code):
            return error.code
        case let error as GLibError:
            if let name = error.remoteDBusErrorName { return code(forErrorName: name) }
            if error.isIOError(G_IO_ERROR_TIMED_OUT) { return .userActivityRemoteApplicationTimedOut }
            if error.isIOError(G_IO_ERROR_INVALID_ARGUMENT) { return .userActivityHandoffFailed }
            return .userActivityConnectionUnavailable
        case let error as UserActivityError:
            if case .payloadTooLarge = error { return .userActivityHandoffUserInfoTooLarge }
            return .userActivityHandoffFailed
        case is VariantError, is CancellationError:
            return .userActivityHandoffFailed
        case let error as any HandoffCoded:
            return error.handoffCode
        default:
            return .userActivityConnectionUnavailable
        }
    }

    /// `error` as a Handoff `CocoaError`: itself if it is one of a Handoff code; otherwise
    /// one of `code(for:)`, described by `error` and carrying it as `NSUnderlyingErrorKey`.
    package static func error(for error: any Error) -> CocoaError {
        if let cocoa = error as? CocoaError, codes.contains(cocoa.code) { return cocoa }
        return CocoaError(code(for: error), userInfo: [NSLocalizedDescriptionKey: "\(error)", NSUnderlyingErrorKey: error])
    }
}
