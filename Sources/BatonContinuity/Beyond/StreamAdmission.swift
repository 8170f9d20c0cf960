import BatonLoop
import CGLib
import Foundation

/// The admission gate (`AdmissionGate`) over a stream that is not a socket: an ICE stream. The
/// same three steps, sizes, MAC and rule — the side that would listen (the controlled one, the
/// TLS server) sends its nonce, the other answers under the group's discovery key, and a wrong
/// answer gets no byte, only the end of the stream — with the reads and writes as GIO's async
/// calls on the loop instead of socket calls. Each side bounds it by
/// `SecureChannel.admissionDeadline` (`SecureChannel.open(over:role:identity:credential:)`).
extension AdmissionGate {
    /// The server's side on `stream`: sends a fresh nonce, reads the whole answer, checks it under
    /// `key` and admits the peer. False if the stream failed or ended, or the answer is wrong:
    /// the caller then closes the stream without a byte more.
    static func admit(over stream: UnsafeMutablePointer<GIOStream>, key: DiscoveryKey) async -> Bool {
        let serverNonce = nonce()
        // The read waits while the nonce goes out: an ICE stream handles its packets (the
        // acknowledgements of the write among them) only while it is read.
        let pointer = SendablePointer(stream)
        let answer = Task { @MainActor in try? await read(answerSize, from: pointer.pointer) }
        guard (try? await write(serverNonce, to: stream)) != nil else {
            answer.cancel()
            return false
        }
        guard let answer = await withTaskCancellationHandler(operation: { await answer.value }, onCancel: { answer.cancel() }),
              verify(answer, serverNonce: serverNonce, key: key) else { return false }
        return (try? await write(Data([admitted]), to: stream)) != nil
    }

    /// The client's side on `stream`: reads the server's nonce, answers it under `key` and reads
    /// the verdict. Throws `admissionRefused` if the stream ends instead of the verdict (the
    /// server took another key), `admissionFailed` if it ends or fails earlier or the verdict is
    /// not the admitting byte.
    static func pass(over stream: UnsafeMutablePointer<GIOStream>, key: DiscoveryKey) async throws(TransportError) {
        guard let serverNonce = try? await read(nonceSize, from: stream), serverNonce.count == nonceSize else {
            throw Task.isCancelled ? .closed : .admissionFailed
        }
        guard (try? await write(answer(to: serverNonce, key: key), to: stream)) != nil else { throw .admissionFailed }
        let verdict: Data
        do { verdict = try await read(1, from: stream) } catch { throw Task.isCancelled ? .closed : .admissionRefused }
        guard !verdict.isEmpty else { throw .admissionRefused }
        guard verdict.first == admitted else { throw .admissionFailed }
    }

    /// Exactly `count` bytes from the stream; fewer (possibly none) if it ends first.
    private static func read(_ count: Int, from stream: UnsafeMutablePointer<GIOStream>) async throws -> Data {
        let input = SendablePointer(g_io_stream_get_input_stream(stream)!)
        let buffer = SendableBytes(Data(count: count))
        return try await GIOAsync.call { cancellable, callback, userData in
            g_input_stream_read_all_async(input.pointer, buffer.pointer, gsize(count), G_PRIORITY_DEFAULT, cancellable, callback, userData)
        } finish: { result, error in
            var read: gsize = 0
            guard g_input_stream_read_all_finish(input.pointer, result, &read, error) != 0 else { return nil }
            return Data(bytes: buffer.pointer, count: Int(read))
        }
    }

    /// Writes all of `bytes` to the stream.
    private static func write(_ bytes: Data, to stream: UnsafeMutablePointer<GIOStream>) async throws {
        let output = SendablePointer(g_io_stream_get_output_stream(stream)!)
        let buffer = SendableBytes(bytes)
        _ = try await GIOAsync.call { cancellable, callback, userData in
            g_output_stream_write_all_async(output.pointer, buffer.pointer, gsize(buffer.count), G_PRIORITY_DEFAULT,
                                            cancellable, callback, userData)
        } finish: { result, error in
            g_output_stream_write_all_finish(output.pointer, result, nil, error) != 0 ? true : nil
        }
        withExtendedLifetime(buffer) {}
    }
}
