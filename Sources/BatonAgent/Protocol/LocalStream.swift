import Baton
import BatonLoop
import CGLib
import Foundation

/// A continuation stream over a local connection to the agent (a `GSocketConnection` on its
/// Unix socket): the app's end of a stream the agent relays to the other device, and the
/// agent's end toward the app. Reads and writes run on the loop through GIO's async calls.
final class LocalStream: ContinuationStreamChannel, @unchecked Sendable {
    /// The `GSocketConnection *` (a reference held until `deinit`).
    let connection: OpaquePointer
    static let piece = 64 * 1024

    /// Takes a reference of its own to `connection`.
    init(_ connection: OpaquePointer) {
        self.connection = connection
        g_object_ref(UnsafeMutableRawPointer(connection))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(connection)) }

    private var stream: UnsafeMutablePointer<GIOStream> { UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self) }

    func read(maxLength: Int) async throws -> Data {
        let input = SendableHandle(OpaquePointer(g_io_stream_get_input_stream(stream)))
        let count = max(1, min(maxLength, Self.piece))
        return try await GIOAsync.call { cancellable, callback, userData in
            g_input_stream_read_bytes_async(UnsafeMutablePointer(input.pointer), gsize(count), G_PRIORITY_DEFAULT, cancellable, callback, userData)
        } finish: { result, error in
            guard let bytes = g_input_stream_read_bytes_finish(UnsafeMutablePointer(input.pointer), result, error) else { return nil }
            defer { g_bytes_unref(bytes) }
            var size: gsize = 0
            guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
            return Data(bytes: data, count: Int(size))
        }
    }

    func write(_ data: Data) async throws {
        let output = SendableHandle(OpaquePointer(g_io_stream_get_output_stream(stream)))
        var offset = data.startIndex
        while offset < data.endIndex {
            let piece = data[offset..<min(offset + Self.piece, data.endIndex)]
            let bytes = SendableHandle(piece.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) })
            defer { g_bytes_unref(bytes.pointer) }
            let written: Int = try await GIOAsync.call { cancellable, callback, userData in
                g_output_stream_write_bytes_async(UnsafeMutablePointer(output.pointer), bytes.pointer, G_PRIORITY_DEFAULT,
                                                  cancellable, callback, userData)
            } finish: { result, error in
                let n = g_output_stream_write_bytes_finish(UnsafeMutablePointer(output.pointer), result, error)
                return n < 0 ? nil : Int(n)
            }
            offset += written
        }
    }

    func finishWriting() async throws {
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        var error: UnsafeMutablePointer<GError>?
        guard g_socket_shutdown(socket, 0, 1, &error) != 0 else { throw GLibError(consuming: error!) }
    }

    func close() {
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        g_socket_shutdown(socket, 1, 1, nil)
        g_socket_close(socket, nil)
    }
}
