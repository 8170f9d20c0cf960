import Foundation

/// A handoff written to a file: what a peer would offer (type, title) and the payload, so one
/// process can hand an activity to another on the same machine, through the same entry point
/// the network uses. The file is the GVariant `(ussay)` (docs/PROTOCOL.md): version, activity
/// type, title ("" for none), payload.
public enum ActivityFile {
    /// The format's version, the file's first field. A file of another version is refused
    /// (`ActivityFileError`) rather than guessed at.
    nonisolated public static let version: UInt32 = 1

    /// Saves `activity` (as before any handoff) and writes it to `url`.
    @MainActor
    public static func write(_ activity: UserActivity, to url: URL) throws {
        let payload = try activity.payload()
        let file = Variant.tuple([.uint32(version), .string(activity.activityType), .string(activity.title ?? ""), .bytes(payload)])
        try file.serialized().write(to: url, options: .atomic)
    }

    /// The largest handoff file: a payload at its limit, and room for the type and title.
    nonisolated public static let sizeLimit = UserActivity.payloadLimit + 4096

    /// The offer in the file: type, title and payload, checked like any untrusted input. The
    /// file's size is checked on the opened file before any byte is read: a file over
    /// `sizeLimit` throws `ActivityFileError.tooLarge` at once.
    public static func read(from url: URL) throws(ActivityFileError) -> (type: String, title: String?, payload: Data) {
        let data = try contents(of: url.path)
        let variant: Variant
        do { variant = try Variant(serialized: data, type: "(ussay)") } catch {
            throw .notAHandoffFile(path: url.path, reason: "its bytes are not a GVariant (ussay)")
        }
        guard case .tuple(let fields) = variant, case .uint32(let v) = fields[0], case .string(let type) = fields[1],
              case .string(let title) = fields[2], case .bytes(let payload) = fields[3] else {
            throw .notAHandoffFile(path: url.path, reason: "its fields are not version, type, title and payload")
        }
        guard v == version else { throw .unsupportedVersion(path: url.path, version: v) }
        return (type, title.isEmpty ? nil : title, payload)
    }

    /// The bytes of the regular file at `path`, at most `sizeLimit` of them.
    private static func contents(of path: String) throws(ActivityFileError) -> Data {
        do { return try FileContents.read(path, limit: sizeLimit) } catch {
            switch error {
            case .missing: throw .unreadable(path: path, reason: "No such file or directory")
            case .unreadable(let reason): throw .unreadable(path: path, reason: reason)
            case .notARegularFile: throw .unreadable(path: path, reason: "it is not a regular file")
            case .tooLarge(let size): throw .tooLarge(path: path, size: size, limit: sizeLimit)
            case .readableByOthers: throw .unreadable(path: path, reason: "it may be read by others")
            }
        }
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
            continuationDelegate?.application(self, didFailToContinueUserActivityWithType: "",
                                  error: Application.handoffError(.userActivityHandoffFailed, "\(error)", underlying: error))
        }
    }
}
