import BatonLoop
import CGLib
import Foundation
@testable import BatonAgent

extension LocalStream {
    /// Two `LocalStream`s over the two ends of a Unix stream socket pair, and their descriptors.
    @MainActor
    static func socketPair() throws -> (LocalStream, LocalStream, (writer: Int32, reader: Int32)) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EMFILE) }
        func stream(_ fd: Int32) throws -> LocalStream {
            var error: UnsafeMutablePointer<GError>?
            guard let socket = g_socket_new_from_fd(fd, &error) else { throw GLibError(consuming: error!) }
            defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
            let connection = g_socket_connection_factory_create_connection(socket)!
            defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
            return LocalStream(OpaquePointer(connection))
        }
        return (try stream(fds[0]), try stream(fds[1]), (fds[0], fds[1]))
    }

    /// Two `LocalStream`s over the two ends of a Unix stream socket pair (`socketPair()`
    /// without the descriptors).
    @MainActor
    static func pair() throws -> (LocalStream, LocalStream) {
        let (one, other, _) = try socketPair()
        return (one, other)
    }
}
