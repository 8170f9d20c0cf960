import BatonLoop
import CGLib
import Foundation

/// Opens the non-blocking listening TCP socket of a `TLSListener` (`SecureListener` for links and
/// streams, `PairingListener` for pairing windows), the one place where an address to listen
/// on becomes a socket.
///
/// `PeerAddress.allInterfaces` (`::`) listens on every interface, IPv6 and IPv4 alike: one IPv6
/// socket with `IPV6_V6ONLY` off, which the kernel hands IPv4 connections as IPv4-mapped
/// addresses (`SecureChannel.remoteHost` gives them back as plain IPv4). On a system without
/// IPv6 (the module not loaded, or disabled) it falls back to `0.0.0.0`, IPv4 only.
enum ListeningSocket {
    /// A bound, listening, non-blocking socket on `host:port` (0: any free port), the host it
    /// is bound to (`0.0.0.0` where every interface fell back to IPv4) and the port it got.
    /// `backlog`: the listen backlog asked for (nil: GLib's default).
    static func open(host: String, port: UInt16, backlog: Int32? = nil) throws(GLibError)
        -> (socket: UnsafeMutablePointer<GSocket>, host: String, port: UInt16) {
        do {
            return try bind(host: host, port: port, backlog: backlog)
        } catch {
            // No IPv6 here (no socket of that family, or no address to bind): every interface
            // is then every IPv4 interface. If that fails too, the first reason is the one said.
            guard host == PeerAddress.allInterfaces, let fallback = try? bind(host: "0.0.0.0", port: port, backlog: backlog) else { throw error }
            return fallback
        }
    }

    private static func bind(host: String, port: UInt16, backlog: Int32?) throws(GLibError)
        -> (socket: UnsafeMutablePointer<GSocket>, host: String, port: UInt16) {
        guard let inet = g_inet_address_new_from_string(host) else {
            throw GLibError(domain: "baton", code: 0, message: "'\(PrintableText.escaped(host))' is not an IP address to listen on")
        }
        defer { g_object_unref(inet) }
        let address = g_inet_socket_address_new(inet, port)!
        defer { g_object_unref(address) }
        let family = g_inet_address_get_family(inet)
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new(family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error) else {
            throw GLibError(consuming: error!)
        }
        if family == G_SOCKET_FAMILY_IPV6, g_inet_address_get_is_any(inet) != 0 {
            // Dual-stack whatever net.ipv6.bindv6only says.
            g_socket_set_option(socket, gint(IPPROTO_IPV6), gint(IPV6_V6ONLY), 0, nil)
        }
        g_socket_set_blocking(socket, 0)
        if let backlog { g_socket_set_listen_backlog(socket, backlog) }
        guard g_socket_bind(socket, address, 1, &error) != 0, g_socket_listen(socket, &error) != 0,
              let local = g_socket_get_local_address(socket, &error) else {
            g_object_unref(socket)
            throw GLibError(consuming: error!)
        }
        defer { g_object_unref(local) }
        return (socket, host, g_inet_socket_address_get_port(gCast(local)))
    }
}
