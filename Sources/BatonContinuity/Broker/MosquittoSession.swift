import BatonLoop
import CGLib
import CMosquitto
import Foundation

/// One connection to the broker through libmosquitto, driven by the GLib loop: no thread of
/// libmosquitto's. A fresh session (a fresh `struct mosquitto`) per attempt.
///
/// libmosquitto's connect resolves the host with `getaddrinfo` and connects the socket, both
/// blocking (its `_async` variants only skip waiting for the TCP handshake, and have no MQTT 5
/// form to ask for a Maximum Packet Size), so `connect` runs `mosquitto_connect_bind_v5` on a
/// worker thread that owns the handle until it returns; the loop never blocks, and gives up at
/// its own deadline (a late worker's handle is destroyed when it returns). From then on
/// everything runs on the loop: the socket is watched for reading, and for writing while
/// `mosquitto_want_write`; each readiness, and a keep-alive timer, calls
/// `mosquitto_loop(handle, 0, 1)` — a select with no timeout that never blocks — which, unlike
/// `mosquitto_loop_read`/`_write`, also finishes the TLS handshake (libmosquitto's
/// `want_connect`). The callbacks run inside it, on the loop. libmosquitto's select refuses
/// descriptors of 1024 and above (`FD_SETSIZE`): the attempt then fails with `.library`.
@MainActor
final class MosquittoSession {
    /// CONNACK came with MQTT reason code `code` (0: accepted).
    var onConnect: (Int32) -> Void = { _ in }
    /// A SUBACK for message `mid`, with each topic's granted QoS (0x80 and above: refused).
    var onSubscribed: (Int32, [Int32]) -> Void = { _, _ in }
    /// A message on `topic`.
    var onMessage: (String, Data) -> Void = { _, _ in }
    /// The session ended with an error (once); it is closed.
    var onLost: (BrokerError) -> Void = { _ in }

    private let handle: SendableHandle
    private let callbacks: MosquittoCallbacks
    private let keepAlive: Duration
    private var readWatch: LoopSource?
    private var writeWatch: LoopSource?
    private var timer: LoopSource?
    private var watchedSocket: Int32 = -1
    private var connecting = false
    private var inLibrary = false
    private var disconnectedCode: Int32?
    /// Whether the broker answered CONNACK: a connection that ends before is a refused handshake.
    private var answered = false
    private(set) var isClosed = false
    private var destroyed = false

    /// Prepares a handle presenting the certificate and key in `identityFolder`
    /// (`certificate.pem`, `key.pem`, as `DeviceIdentity.write(to:)` keeps them) over TLS 1.3,
    /// verifying the broker against `settings.brokerAuthority`.
    init(settings: BrokerSignallingSettings, identityFolder: URL) throws(BrokerError) {
        _ = Self.libraryReady
        callbacks = MosquittoCallbacks()
        keepAlive = settings.keepAlive
        var idBytes = [UInt8](repeating: 0, count: 8)
        for index in idBytes.indices { idBytes[index] = UInt8.random(in: 0...255) }
        let clientID = "b" + idBytes.map { String(format: "%02x", $0) }.joined()
        let userData = callbacks.retainedOpaque()
        guard let pointer = mosquitto_new(clientID, true, userData) else {
            CallbackBox.release(userData)
            throw .library(code: Int(MOSQ_ERR_NOMEM.rawValue), message: "mosquitto_new failed")
        }
        handle = SendableHandle(pointer: pointer, userData: userData)
        callbacks.session = self
        mosquitto_connect_callback_set(pointer, connectTrampoline)
        mosquitto_disconnect_callback_set(pointer, disconnectTrampoline)
        mosquitto_message_callback_set(pointer, messageTrampoline)
        mosquitto_subscribe_callback_set(pointer, subscribeTrampoline)
        var rc = mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        if settings.brokerAuthority == nil, rc == 0 { rc = mosquitto_int_option(pointer, MOSQ_OPT_TLS_USE_OS_CERTS, 1) }
        if rc == 0 {
            // libmosquitto 2.0 refuses TLS with neither a CA file nor a CA folder, even with
            // MOSQ_OPT_TLS_USE_OS_CERTS: without an authority, the system's folder is named.
            rc = mosquitto_tls_set(pointer, settings.brokerAuthority?.path,
                                   settings.brokerAuthority == nil ? Self.systemAuthorities : nil,
                                   identityFolder.appendingPathComponent("certificate.pem").path,
                                   identityFolder.appendingPathComponent("key.pem").path, nil)
        }
        if rc == 0 { rc = mosquitto_tls_opts_set(pointer, 1, "tlsv1.3", nil) }
        if rc != 0 {
            destroy()
            throw Self.error(rc, errno: 0)
        }
    }

    isolated deinit { close() }

    /// Debian's folder of the system's trusted certificate authorities (ca-certificates).
    static let systemAuthorities = "/etc/ssl/certs"

    /// Connects to `host`:`port` on a worker thread, then drives the session on the loop;
    /// asks the broker to send nothing larger than `maximumPacket` bytes.
    func connect(host: String, port: UInt16, maximumPacket: Int) {
        connecting = true
        let handle = handle, keepAliveSeconds = Int32(clamping: max(5, keepAlive.components.seconds))
        let maximum = UInt32(clamping: maximumPacket)
        DispatchQueue.global().async {
            var properties: OpaquePointer?
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), maximum)
            let rc = mosquitto_connect_bind_v5(handle.pointer, host, Int32(port), keepAliveSeconds, nil, properties)
            let code = errno
            mosquitto_property_free_all(&properties)
            Task { @MainActor in self.connectReturned(rc, errno: code) }
        }
    }

    private func connectReturned(_ rc: Int32, errno code: Int32) {
        connecting = false
        if isClosed { destroy(); return }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return fail(Self.error(rc, errno: code)) }
        let interval = max(Duration.seconds(1), keepAlive / 4)
        timer = MainLoop.every(interval) { [weak self] in
            self?.pump()
            return .again
        }
        rearm()
    }

    /// Subscribes to `topic` (QoS 0); returns the message id its SUBACK will carry.
    func subscribe(_ topic: String) throws(BrokerError) -> Int32 {
        var mid: Int32 = 0
        let rc = mosquitto_subscribe_v5(handle.pointer, &mid, topic, 0, 0, nil)
        guard rc == 0 else { throw Self.error(rc, errno: errno) }
        rearm()
        return mid
    }

    /// Unsubscribes from `topic`, not waiting for the answer.
    func unsubscribe(_ topic: String) {
        _ = mosquitto_unsubscribe_v5(handle.pointer, nil, topic, nil)
        rearm()
    }

    /// Publishes `payload` on `topic` (QoS 0, not retained).
    func publish(_ payload: Data, on topic: String) throws(BrokerError) {
        let rc = payload.withUnsafeBytes { mosquitto_publish_v5(handle.pointer, nil, topic, Int32(payload.count), $0.baseAddress, 0, false, nil) }
        guard rc == 0 else { throw Self.error(rc, errno: errno) }
        rearm()
    }

    /// Ends the session: says goodbye to the broker if connected, removes the loop's sources
    /// and frees the handle (once libmosquitto has returned, if called from its callback).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if !connecting, !inLibrary { _ = mosquitto_disconnect(handle.pointer) }
        stopWatching()
        if !connecting, !inLibrary { destroy() }
    }

    private func stopWatching() {
        readWatch?.cancel(); readWatch = nil
        writeWatch?.cancel(); writeWatch = nil
        timer?.cancel(); timer = nil
        watchedSocket = -1
    }

    private func destroy() {
        guard !destroyed else { return }
        destroyed = true
        callbacks.session = nil
        mosquitto_destroy(handle.pointer)
        CallbackBox.release(handle.userData)
    }

    private func fail(_ error: BrokerError) {
        guard !isClosed else { return }
        close()
        // With TLS 1.3 the client's side of the handshake ends before the broker checks the
        // client's certificate; a broker that refuses it closes the connection, which the client
        // sees as an alert or as the connection's end, by timing: both are a refused handshake.
        onLost(!answered && error == .connectionLost ? .tls : error)
    }

    /// Lets libmosquitto read, write and keep alive what it can without blocking.
    private func pump() {
        guard !isClosed, !connecting else { return }
        inLibrary = true
        let rc = mosquitto_loop(handle.pointer, 0, 1)
        let code = errno
        inLibrary = false
        if isClosed { return destroyAfterClose() }
        if rc != 0 { return fail(Self.error(rc, errno: code)) }
        if disconnectedCode != nil || mosquitto_socket(handle.pointer) < 0 { return fail(.connectionLost) }
        rearm()
    }

    private func destroyAfterClose() {
        _ = mosquitto_disconnect(handle.pointer)
        destroy()
    }

    /// Watches the socket for reading, and for writing while libmosquitto has bytes to send.
    private func rearm() {
        guard !isClosed, !connecting else { return }
        let socket = mosquitto_socket(handle.pointer)
        guard socket >= 0 else { return }
        if socket != watchedSocket {
            readWatch?.cancel(); writeWatch?.cancel(); writeWatch = nil
            watchedSocket = socket
            readWatch = MainLoop.whenReadable(socket) { [weak self] in
                self?.pump()
                return .again
            }
        }
        if mosquitto_want_write(handle.pointer), writeWatch == nil {
            writeWatch = MainLoop.whenWritable(socket) { [weak self] in
                self?.writeWatch = nil
                self?.pump()
                return .stop
            }
        }
    }

    // Called by the trampolines, inside `mosquitto_loop`, on the loop.
    fileprivate func connected(_ code: Int32) {
        answered = true
        onConnect(code)
    }
    fileprivate func disconnected(_ code: Int32) { disconnectedCode = code }
    fileprivate func subscribed(_ mid: Int32, _ granted: [Int32]) { onSubscribed(mid, granted) }
    fileprivate func received(_ topic: String, _ payload: Data) { if !isClosed { onMessage(topic, payload) } }

    /// libmosquitto's result `rc` (with the `errno` it left) as a `BrokerError`.
    static func error(_ rc: Int32, errno code: Int32) -> BrokerError {
        switch rc {
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue: return .tls
        case MOSQ_ERR_ERRNO.rawValue where code == EPROTO: return .tls
        case MOSQ_ERR_ERRNO.rawValue: return .unreachable(reason: String(cString: strerror(code)))
        case MOSQ_ERR_EAI.rawValue: return .unreachable(reason: "the broker's host name does not resolve")
        case MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_KEEPALIVE.rawValue: return .connectionLost
        case MOSQ_ERR_CONN_REFUSED.rawValue, MOSQ_ERR_AUTH.rawValue, MOSQ_ERR_NOT_SUPPORTED.rawValue:
            return .refusedByBroker(code: Int(rc))
        default: return .library(code: Int(rc), message: String(cString: mosquitto_strerror(rc)))
        }
    }

    /// `mosquitto_lib_init`, once per process (it sets up OpenSSL).
    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()
}

/// The handle and its callbacks' box, handed to the worker thread that connects (which alone
/// uses them until it returns).
private struct SendableHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    let userData: UnsafeMutableRawPointer
}

/// What libmosquitto's callbacks get as `obj`: the session, while it lives.
private final class MosquittoCallbacks: CallbackBox, @unchecked Sendable {
    weak var session: MosquittoSession?
}

private func withSession(_ userData: UnsafeMutableRawPointer?, _ body: @MainActor (MosquittoSession) -> Void) {
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a libmosquitto callback")
    let box = MosquittoCallbacks.borrow(userData)
    MainActor.assumeIsolated {
        if let session = box.session { body(session) }
    }
}

private let connectTrampoline: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, userData, code in
    withSession(userData) { $0.connected(code) }
}

private let disconnectTrampoline: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, userData, code in
    withSession(userData) { $0.disconnected(code) }
}

private let subscribeTrampoline: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
    _, userData, mid, count, granted in
    let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, count)))) } ?? []
    withSession(userData) { $0.subscribed(mid, codes) }
}

private let messageTrampoline: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
    _, userData, message in
    guard let message, let topic = message.pointee.topic else { return }
    let name = String(cString: topic)
    let payload = message.pointee.payload.map { Data(bytes: $0, count: Int(max(0, message.pointee.payloadlen))) } ?? Data()
    withSession(userData) { $0.received(name, payload) }
}
