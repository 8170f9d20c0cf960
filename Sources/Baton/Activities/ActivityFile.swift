import Foundation

/// A handoff written to a file: what a peer would offer (type, title) and the payload, so one
/// process can hand an activity to another on the same machine, through the same entry point
/// the network uses. The file is the GVariant `(ussay)` (docs/PROTOCOL.md): version, activity
/// type, title ("" for none), payload.
public enum ActivityFile {
    nonisolated public static let version: UInt32 = 1

    /// Saves `activity` (as before any handoff) and writes it to `url`.
    @MainActor
    public static func write(_ activity: UserActivity, to url: URL) throws {
        let payload = try activity.payload()
        let file = Variant.tuple([.uint32(version), .string(activity.activityType), .string(activity.title ?? ""), .bytes(payload)])
        try file.serialized().write(to: url, options: .atomic)
    }

    /// The offer in the file: type, title and payload, checked like any untrusted input.
    public static func read(from url: URL) throws -> (type: String, title: String?, payload: Data) {
        let data = try FileContents.read(url)
        guard data.count <= UserActivity.payloadLimit + 4096 else {
            throw UserActivityError.payloadTooLarge(size: data.count, limit: UserActivity.payloadLimit)
        }
        let variant: Variant
        do { variant = try Variant(serialized: data, type: "(ussay)") } catch {
            throw UserActivityError.malformedPayload(reason: "\(url.path) is not a handoff file: \(error)")
        }
        guard case .tuple(let fields) = variant, case .uint32(let v) = fields[0], case .string(let type) = fields[1],
              case .string(let title) = fields[2], case .bytes(let payload) = fields[3] else {
            throw UserActivityError.malformedPayload(reason: "\(url.path) is not a handoff file")
        }
        guard v == version else { throw UserActivityError.unsupportedPayloadVersion(v) }
        return (type, title.isEmpty ? nil : title, payload)
    }
}

extension Application {
    /// Continues the activity in a handoff file through `continueUserActivity(ofType:…)`. A
    /// file that cannot be read ends in `didFailToContinue…` with an empty type, since no
    /// activity type could be read.
    public func continueUserActivity(fromFileAt url: URL) {
        do {
            let offer = try ActivityFile.read(from: url)
            continueUserActivity(ofType: offer.type, title: offer.title) { offer.payload }
        } catch {
            delegate?.application(self, didFailToContinueUserActivityWithType: "",
                                  error: Application.handoffError(.userActivityHandoffFailed, "\(error)", underlying: error))
        }
    }
}
