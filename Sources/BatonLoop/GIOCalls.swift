import CGLib
import Foundation

/// Ready-made GIO operations as `async` functions, built on `GIOAsync.call`: started on the
/// main actor, called back through `MainLoop.context`.
@MainActor
public enum GIOCalls {
    /// The whole contents of the file at `path` (`g_file_load_contents_async`).
    public static func contents(ofFile path: String) async throws -> Data {
        let file = g_file_new_for_path(path)!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        return try await GIOAsync.call { cancellable, callback, userData in
            g_file_load_contents_async(file, cancellable, callback, userData)
        } finish: { result, error in
            var bytes: UnsafeMutablePointer<CChar>?
            var length: gsize = 0
            guard g_file_load_contents_finish(file, result, &bytes, &length, nil, error) != 0, let bytes else {
                return nil
            }
            defer { g_free(bytes) }
            return Data(bytes: bytes, count: Int(length))
        }
    }

    /// Up to `maxLength` bytes from `fd` as soon as some are available (empty at end of
    /// file), through a `GUnixInputStream` that leaves `fd` open.
    public static func read(fromDescriptor fd: Int32, maxLength: Int) async throws -> Data {
        let stream = g_unix_input_stream_new(fd, 0)!
        defer { g_object_unref(stream) }
        return try await read(from: UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GInputStream.self), maxLength: maxLength)
    }

    /// Up to `maxLength` bytes from `stream` as soon as some are available; empty at its end
    /// (`g_input_stream_read_async`).
    public static func read(from stream: UnsafeMutablePointer<GInputStream>, maxLength: Int) async throws -> Data {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(maxLength, 1), alignment: 1)
        defer { buffer.deallocate() }  // GIO writes into it until the read finishes, which the await spans
        let count: Int = try await GIOAsync.call { cancellable, callback, userData in
            g_input_stream_read_async(stream, buffer, gsize(maxLength), G_PRIORITY_DEFAULT, cancellable, callback, userData)
        } finish: { result, error in
            let n = g_input_stream_read_finish(stream, result, error)
            return n < 0 ? nil : Int(n)
        }
        return Data(bytes: buffer, count: count)
    }
}
