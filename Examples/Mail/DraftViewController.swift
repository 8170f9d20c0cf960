import Baton
import Crypto
import ExampleSupport
import Foundation

/// A mail draft with a large attachment (handoff-programming-guide, "Using Continuation
/// Streams": "composing an email message that contains an image"). The small payload carries
/// the draft; the attachment comes over continuation streams, a request and its response.
final class DraftViewController: ViewController, UserActivityDelegate {
    static let composeType = "com.example.mail.compose"
    var to = "", subject = "", body = ""
    var attachment: URL?
    /// The name the attachment is sent under (its file name unless given).
    var attachmentName: String?
    /// The largest attachment the continuing device accepts.
    static let attachmentLimit = 1 << 30
    /// Called once the draft went on elsewhere: the other device continued it
    /// (`userActivityWasContinued`) and, when there is an attachment, has it all. The two come
    /// in either order.
    var onHandedOff: (@MainActor () -> Void)?
    private var attachmentSent = false, continuedElsewhere = false

    override func loadView() { view = ComposeView(identifier: "compose") }

    /// Listing 2-9: supportsContinuationStreams, a delegate, becomeCurrent.
    func compose(to: String, subject: String, body: String, attachment: URL?, named name: String? = nil) {
        (self.to, self.subject, self.body, self.attachment) = (to, subject, body, attachment)
        attachmentName = name ?? attachment?.lastPathComponent
        let activity = UserActivity(activityType: Self.composeType)
        activity.title = "Editing Mail"
        activity.supportsContinuationStreams = true
        activity.delegate = self
        userActivity = activity
        activity.needsSave = true
        activity.becomeCurrent()
        say("composing \"\(subject)\" to \(to)\(attachment.map { " with \($0.lastPathComponent)" } ?? "")")
    }

    override func updateUserActivityState(_ activity: UserActivity) {
        var entries: [AnyHashable: Any] = ["to": to, "subject": subject, "body": body]
        if let attachment, let data = try? Data(contentsOf: attachment, options: .mappedIfSafe) {
            entries["attachmentName"] = attachmentName ?? attachment.lastPathComponent
            entries["attachmentSize"] = data.count
            entries["attachmentSHA256"] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
        activity.addUserInfoEntries(from: entries)
    }

    /// The continuing device asks for the attachment by name; it gets the file's bytes.
    func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                      outputStream: ContinuationOutputStream) {
        Task { @MainActor in
            do {
                let request = String(decoding: try await inputStream.readToEnd(limit: 1024), as: UTF8.self)
                guard let attachment, let attachmentName, request == "attachment \(attachmentName)" else {
                    say("refused the stream request \"\(shown(request))\"")
                    return inputStream.close()
                }
                let handle = try FileHandle(forReadingFrom: attachment)
                defer { try? handle.close() }
                var sent = 0
                while let chunk = try handle.read(upToCount: 256 * 1024), !chunk.isEmpty {
                    try await outputStream.write(chunk)
                    sent += chunk.count
                }
                try await outputStream.close()
                say("sent \(attachment.lastPathComponent) over continuation streams (\(sent) bytes)")
                attachmentSent = true
                handedOffIfDone()
            } catch {
                say("error: the attachment could not be sent: \(error)")
            }
        }
    }

    func userActivityWasContinued(_ userActivity: UserActivity) {
        say("userActivityWasContinued: the draft continues on another device")
        continuedElsewhere = true
        handedOffIfDone()
    }

    private func handedOffIfDone() {
        guard continuedElsewhere, attachment == nil || attachmentSent, let handedOff = onHandedOff else { return }
        onHandedOff = nil
        handedOff()
    }

    /// On the continuing device: the draft from `userInfo`, then the attachment over streams.
    /// Everything in `userInfo` came from another device: it is printed through `shown(_:)`,
    /// and the attachment's name is only a suggestion (`IncomingFile`), its size a bound.
    override func restoreUserActivityState(_ activity: UserActivity) {
        super.restoreUserActivityState(activity)
        guard activity.activityType == Self.composeType, let info = activity.userInfo else { return }
        to = info["to"] as? String ?? ""
        subject = info["subject"] as? String ?? ""
        body = info["body"] as? String ?? ""
        say("restoreUserActivityState: draft \"\(shown(subject))\" to \(shown(to)): \(shown(body))")
        guard let name = info["attachmentName"] as? String, let size = info["attachmentSize"] as? Int,
              let digest = info["attachmentSHA256"] as? String else { return Application.shared.terminate(nil) }
        let saveDirectory = value(after: "--save-to").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        Task { @MainActor in
            var incoming: IncomingFile?
            do {
                guard (0...Self.attachmentLimit).contains(size) else {
                    throw IncomingFile.Failure.tooLarge(announced: size, limit: Self.attachmentLimit)
                }
                let file = try IncomingFile(in: saveDirectory, named: name)
                incoming = file
                let (input, output) = try await activity.continuationStreams()
                try await output.write(Data("attachment \(name)".utf8))
                try await output.close()
                var hash = SHA256(), received = 0
                for try await chunk in input {
                    received += chunk.count
                    guard received <= size else { throw IncomingFile.Failure.moreThanAnnounced(announced: size) }
                    try file.write(chunk)
                    hash.update(data: chunk)
                }
                let ok = received == size && hash.finalize().map({ String(format: "%02x", $0) }).joined() == digest
                say("received \(file.name) over continuation streams: \(received) bytes, checksum \(ok ? "matches" : "DOES NOT MATCH")")
                if ok {
                    attachment = try file.keep()
                    say("saved it as \(attachment!.path)")
                } else {
                    exitCode = 1
                }
            } catch {
                say("error: the attachment did not arrive: \(shown("\(error)"))")
                exitCode = 1
            }
            incoming?.discard()  // removes what was received unless it was kept
            Application.shared.terminate(nil)
        }
    }
}

final class ComposeView: View {
    override var acceptsFirstResponder: Bool { true }
}
