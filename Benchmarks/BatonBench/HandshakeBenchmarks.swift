import BatonContinuity
import CGLib
import Foundation

/// Issue 30's handshake figures: a mutual TLS 1.3 handshake through GIO (glib-networking,
/// GnuTLS) beside the same handshake done by OpenSSL (Python's `ssl`), with the same
/// certificates on the same machine in the same run; and the cold continuation beside GIO's
/// handshake and one round trip.
///
///     BatonBench --handshake     (these rows alone)
///     BatonBench --tls-server gio DEVICE-DIR   (the GIO side's server: prints its port, serves until its input ends)
///
/// Both handshakes are timed the same way, on the client, from the TCP connect to the end of
/// the handshake, each against a server in another process that asks for the client's
/// certificate and checks both chains against the group's certificate (GnuTLS's check through
/// a `GTlsFileDatabase`, OpenSSL's own). After each, one byte goes each way, untimed, and the
/// connection closes. Neither side has a session to resume: each handshake is a full one. The
/// two alternate in `blocks` blocks, so that both meet the same load on a shared machine.
@MainActor
enum HandshakeBenchmarks {
    /// Handshakes each side makes in `--handshake` (and in the full run).
    static let handshakes = 200

    /// Handshakes each side makes in `--quick`: enough for a median, in about a second.
    static let quickHandshakes = 40

    /// Blocks each side's handshakes are made in, alternating GIO's and OpenSSL's.
    static let blocks = 5

    /// The figures of `--handshake`: the handshake row, then the cold continuation's rows.
    static func figures() throws -> [Figure] {
        [try handshakeFigure(count: handshakes)] + ContinuityBenchmarks.coldFigures(try ContinuityBenchmarks.coldOnly())
    }

    /// The handshake row: the median of `count` GIO handshakes beside the median of `count`
    /// OpenSSL ones, both against a server in another process, with a new group's certificates.
    static func handshakeFigure(count: Int) throws -> Figure {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-handshake-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        let server = root.appendingPathComponent("A"), client = root.appendingPathComponent("B")
        try authority.issueDevice(named: "A").write(to: server)
        try authority.issueDevice(named: "B").write(to: client)

        let harness = try OpenSSLHarness(server: server, client: client)
        defer { harness.stop() }
        var openssl: [Double] = []
        let gio = try gioHandshakes(server: server, client: client, count: count) { openssl += try harness.handshakes($0) }
        return Figure(name: "mutual TLS 1.3 handshake, GIO (GnuTLS)", value: percentile(gio, 50),
                      baselineName: "same, OpenSSL (Python ssl)", baseline: percentile(openssl, 50), unit: "µs",
                      aim: "OpenSSL's cost")
    }

    // MARK: GIO

    /// µs per handshake, `count` of them, GIO's client against GIO's server (`--tls-server gio`
    /// in another process), in `blocks` blocks, each followed by `afterBlock(its size)`.
    static func gioHandshakes(server: URL, client: URL, count: Int, afterBlock: (Int) throws -> Void) throws -> [Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--tls-server", "gio", server.path]
        let toChild = Pipe(), fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        defer { try? toChild.fileHandleForWriting.close(); child.waitUntilExit() }
        let ready = ContinuityBenchmarks.readLine(fromChild.fileHandleForReading).split(separator: " ")
        guard ready.count == 2, ready[0] == "ready", let port = UInt16(ready[1]) else {
            throw BenchFailure("the GIO TLS server did not start")
        }
        let (certificate, database) = try gioCredentials(client)
        defer { g_object_unref(certificate); g_object_unref(database) }
        var times: [Double] = []
        let blockSize = max(1, count / blocks)
        for index in 0..<count {
            if index > 0, index % blockSize == 0 { try afterBlock(blockSize) }
            let socketClient = g_socket_client_new()!
            defer { g_object_unref(socketClient) }
            g_socket_client_set_enable_proxy(socketClient, 0)
            var error: UnsafeMutablePointer<GError>?
            let start = ContinuousClock.now
            guard let connection = g_socket_client_connect_to_host(socketClient, "127.0.0.1", port, nil, &error) else {
                throw BenchFailure("connect: \(String(cString: error!.pointee.message))")
            }
            defer { g_object_unref(connection) }
            g_socket_set_option(g_socket_connection_get_socket(connection), gint(IPPROTO_TCP), gint(TCP_NODELAY), 1, nil)
            guard let tls = baton_tls_client_connection_new(UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self), &error) else {
                throw BenchFailure("TLS client: \(String(cString: error!.pointee.message))")
            }
            defer { g_object_unref(tls) }
            try handshake(tls, certificate: certificate, database: database)
            times.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
            try exchangeOneByte(tls, answering: false)
            g_io_stream_close(tls, nil, nil)
        }
        try afterBlock(count - (count - 1) / blockSize * blockSize)
        return times
    }

    /// The device's certificate (with its key) and a database holding its group's certificate.
    static func gioCredentials(_ device: URL) throws -> (UnsafeMutablePointer<GTlsCertificate>, UnsafeMutablePointer<GTlsDatabase>) {
        var error: UnsafeMutablePointer<GError>?
        guard let certificate = g_tls_certificate_new_from_files(device.appendingPathComponent("certificate.pem").path,
                                                                 device.appendingPathComponent("key.pem").path, &error),
              let database = g_tls_file_database_new(device.appendingPathComponent("group.pem").path, &error) else {
            throw BenchFailure("credentials: \(String(cString: error!.pointee.message))")
        }
        return (certificate, UnsafeMutableRawPointer(database).assumingMemoryBound(to: GTlsDatabase.self))
    }

    /// A blocking handshake on `tls` presenting `certificate`, the peer's chain checked by
    /// GnuTLS against `database` (the host name aside: device certificates name no host).
    static func handshake(_ tls: UnsafeMutablePointer<GIOStream>, certificate: UnsafeMutablePointer<GTlsCertificate>,
                          database: UnsafeMutablePointer<GTlsDatabase>) throws {
        let connection = UnsafeMutableRawPointer(tls).assumingMemoryBound(to: GTlsConnection.self)
        g_tls_connection_set_certificate(connection, certificate)
        g_tls_connection_set_database(connection, database)
        let acceptSigned: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UInt32, UnsafeMutableRawPointer?) -> gboolean = {
            _, _, errors, _ in errors & ~UInt32(G_TLS_CERTIFICATE_BAD_IDENTITY.rawValue) == 0 ? 1 : 0
        }
        g_signal_connect_data(connection, "accept-certificate", unsafeBitCast(acceptSigned, to: GCallback.self), nil, nil, GConnectFlags(0))
        var error: UnsafeMutablePointer<GError>?
        guard g_tls_connection_handshake(connection, nil, &error) != 0 else {
            throw BenchFailure("handshake: \(String(cString: error!.pointee.message))")
        }
        guard g_tls_connection_get_protocol_version(connection) == G_TLS_PROTOCOL_VERSION_TLS_1_3 else {
            throw BenchFailure("the handshake was not TLS 1.3")
        }
    }

    /// One byte each way: the client writes first, the server echoes.
    static func exchangeOneByte(_ tls: UnsafeMutablePointer<GIOStream>, answering: Bool) throws {
        var byte: UInt8 = 7
        let input = g_io_stream_get_input_stream(tls), output = g_io_stream_get_output_stream(tls)
        if !answering { guard g_output_stream_write(output, &byte, 1, nil, nil) == 1 else { throw BenchFailure("write") } }
        guard g_input_stream_read(input, &byte, 1, nil, nil) == 1 else { throw BenchFailure("read") }
        if answering { guard g_output_stream_write(output, &byte, 1, nil, nil) == 1 else { throw BenchFailure("write") } }
    }

    /// `--tls-server gio DEVICE-DIR`: serves GIO handshakes one at a time on loopback, blocking
    /// (no loop), requiring the client's certificate, until its input ends.
    static func runServer(_ arguments: [String]) -> Never {
        guard arguments.count == 2, arguments[0] == "gio" else {
            say("usage: BatonBench --tls-server gio DEVICE-DIR")
            exit(2)
        }
        Thread.detachNewThread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            exit(0)
        }
        do {
            let (certificate, database) = try gioCredentials(URL(fileURLWithPath: arguments[1]))
            let listener = g_socket_listener_new()!
            let address = g_inet_socket_address_new_from_string("127.0.0.1", 0)!
            var bound: UnsafeMutablePointer<GSocketAddress>?
            var error: UnsafeMutablePointer<GError>?
            guard g_socket_listener_add_address(listener, address, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil, &bound, &error) != 0,
                  let bound else {
                throw BenchFailure("listen: \(String(cString: error!.pointee.message))")
            }
            say("ready \(g_inet_socket_address_get_port(UnsafeMutableRawPointer(bound).assumingMemoryBound(to: GInetSocketAddress.self)))")
            while true {
                guard let connection = g_socket_listener_accept(listener, nil, nil, nil) else { continue }
                g_socket_set_option(g_socket_connection_get_socket(connection), gint(IPPROTO_TCP), gint(TCP_NODELAY), 1, nil)
                let base = UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self)
                if let tls = baton_tls_server_connection_new(base, certificate, nil) {
                    baton_tls_require_client_certificate(UnsafeMutableRawPointer(tls).assumingMemoryBound(to: GTlsConnection.self))
                    if (try? handshake(tls, certificate: certificate, database: database)) != nil {
                        try? exchangeOneByte(tls, answering: true)
                    }
                    g_io_stream_close(tls, nil, nil)
                    g_object_unref(tls)
                }
                g_object_unref(connection)
            }
        } catch {
            say("TLS server failed: \(error)")
        }
        exit(1)
    }

    // MARK: OpenSSL

    /// Python's `ssl` (OpenSSL): a client in a child process that makes a block of handshakes
    /// each time it is asked, against its own server (a forked process, serving until it ends).
    @MainActor
    final class OpenSSLHarness {
        private let python = Process()
        private let input = Pipe(), output = Pipe()

        init(server: URL, client: URL) throws {
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", openSSLHarness, server.path, client.path]
            python.standardInput = input
            python.standardOutput = output
            try python.run()
        }

        /// µs per handshake, `count` of them.
        func handshakes(_ count: Int) throws -> [Double] {
            try input.fileHandleForWriting.write(contentsOf: Data("\(count)\n".utf8))
            let line = ContinuityBenchmarks.readLine(output.fileHandleForReading)
            let times = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
            guard times.count == count else {
                throw BenchFailure("the OpenSSL harness gave \(times.count) of \(count) handshakes: \(line.prefix(400))")
            }
            return times
        }

        /// Ends the harness (end of its input) and waits for it.
        func stop() {
            try? input.fileHandleForWriting.close()
            python.waitUntilExit()
        }
    }

    /// The OpenSSL side: a forked server (TLS 1.3 only, client certificate required, chains
    /// checked against the group's certificate), serving until the client ends, and a client
    /// that for each line N on its input makes N handshakes and prints each one's µs on a line.
    static let openSSLHarness = """
    import os, signal, socket, ssl, sys, time
    server_dir, client_dir = sys.argv[1], sys.argv[2]
    def context(side, directory):
        ctx = ssl.SSLContext(side)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.load_cert_chain(directory + "/certificate.pem", directory + "/key.pem")
        ctx.load_verify_locations(directory + "/group.pem")
        ctx.verify_mode = ssl.CERT_REQUIRED
        if side == ssl.PROTOCOL_TLS_CLIENT:
            ctx.check_hostname = False
        else:
            ctx.num_tickets = 0
        return ctx
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    child = os.fork()
    if child == 0:
        server = context(ssl.PROTOCOL_TLS_SERVER, server_dir)
        while True:
            plain, _ = listener.accept()
            plain.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                with server.wrap_socket(plain, server_side=True) as tls:
                    tls.sendall(tls.recv(1))
            except (ssl.SSLError, OSError):
                pass
    listener.close()
    client = context(ssl.PROTOCOL_TLS_CLIENT, client_dir)
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        times = []
        for _ in range(int(line)):
            start = time.perf_counter_ns()
            plain = socket.create_connection(("127.0.0.1", port))
            plain.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            tls = client.wrap_socket(plain)
            times.append((time.perf_counter_ns() - start) / 1000)
            tls.sendall(b"x")
            tls.recv(1)
            tls.close()
        print(" ".join("%.1f" % t for t in times), flush=True)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    """
}
