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
    /// Called once the attachment has been sent to the continuing device.
    var onAttachmentSent: (@MainActor () -> Void)?

    override func loadView() { view = ComposeView(identifier: "compose") }

    /// Listing 2-9: supportsContinuationStreams, a delegate, becomeCurrent.
    func compose(to: String, subject: String, body: String, attachment: URL?) {
        (self.to, self.subject, self.body, self.attachment) = (to, subject, body, attachment)
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
            entries["attachmentName"] = attachment.lastPathComponent
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
                guard let attachment, request == "attachment \(attachment.lastPathComponent)" else {
                    say("refused the stream request \"\(request)\"")
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
                onAttachmentSent?()
            } catch {
                say("error: the attachment could not be sent: \(error)")
            }
        }
    }

    func userActivityWasContinued(_ userActivity: UserActivity) {
        say("userActivityWasContinued: the draft continues on another device")
        if attachment == nil { MainLoop.idle { Application.shared.terminate(nil) } }
    }

    /// On the continuing device: the draft from `userInfo`, then the attachment over streams.
    override func restoreUserActivityState(_ activity: UserActivity) {
        super.restoreUserActivityState(activity)
        guard activity.activityType == Self.composeType, let info = activity.userInfo else { return }
        to = info["to"] as? String ?? ""
        subject = info["subject"] as? String ?? ""
        body = info["body"] as? String ?? ""
        say("restoreUserActivityState: draft \"\(subject)\" to \(to): \(body)")
        guard let name = info["attachmentName"] as? String, let size = info["attachmentSize"] as? Int,
              let digest = info["attachmentSHA256"] as? String else { return Application.shared.terminate(nil) }
        let saveDirectory = value(after: "--save-to").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        Task { @MainActor in
            do {
                let (input, output) = try await activity.continuationStreams()
                try await output.write(Data("attachment \(name)".utf8))
                try await output.close()
                let destination = saveDirectory.appendingPathComponent(name)
                _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
                let file = try FileHandle(forWritingTo: destination)
                var hash = SHA256(), received = 0
                for try await chunk in input {
                    try file.write(contentsOf: chunk)
                    hash.update(data: chunk)
                    received += chunk.count
                }
                try file.close()
                let ok = received == size && hash.finalize().map({ String(format: "%02x", $0) }).joined() == digest
                say("received \(name) over continuation streams: \(received) bytes, checksum \(ok ? "matches" : "DOES NOT MATCH")")
                attachment = destination
                if !ok { exitCode = 1 }
            } catch {
                say("error: the attachment did not arrive: \(error)")
                exitCode = 1
            }
            Application.shared.terminate(nil)
        }
    }
}

final class ComposeView: View {
    override var acceptsFirstResponder: Bool { true }
}
