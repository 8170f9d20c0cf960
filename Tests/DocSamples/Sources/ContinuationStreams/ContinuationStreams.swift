import Baton

// The originating app: its activity has `supportsContinuationStreams = true`, and its delegate
// answers what the other side asks for.
final class AttachmentServer: UserActivityDelegate {
    func userActivity(_ activity: UserActivity, didReceive input: ContinuationInputStream, outputStream output: ContinuationOutputStream) {
        Task { @MainActor in
            let request = try await input.readToEnd(limit: 1024)         // what the other side asks for
            try await output.write(self.attachment(for: request)); try await output.close()
        }
    }

    func attachment(for request: Data) -> Data { Data("the attachment asked for".utf8) }
}

// The continuing app, on the activity it was given: it asks, then reads the answer as it arrives.
@MainActor func attachment(of activity: UserActivity, request: Data) async throws -> Data {
    let (input, output) = try await activity.continuationStreams()     // or getContinuationStreams { … }
    try await output.write(request); try await output.close()
    var attachment = Data()
    for try await chunk in input { attachment.append(chunk) }          // many megabytes, as they arrive
    return attachment
}
