@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// Continuation streams multiplexed on a device link (issue 26; handoff-programming-guide,
/// "Using Continuation Streams": data written on one side is read on the other, and the end of
/// one side's writing is the end of the other's reading). Both ends of one real link (mutual
/// TLS over loopback, the D-Bus engine on the loop) in this process, each with its
/// `LinkStreams`; the stream is opened on both ends by hand, as `OpenStreams` does.
final class LinkStreamTests: TrustTestCase {
    /// One link's two ends: the side that accepted the TCP connection and the side that dialed.
    @MainActor
    final class LinkPair {
        let accepting: PeerBus, dialing: PeerBus
        let acceptingStreams: LinkStreams, dialingStreams: LinkStreams
        /// Why the accepting side closed the link, if it did.
        var acceptingRefused: DiagnosticEvent.RefusalReason?

        init(accepting: PeerBus, dialing: PeerBus) {
            self.accepting = accepting
            self.dialing = dialing
            acceptingStreams = LinkStreams(bus: accepting.bus, accepted: true)
            dialingStreams = LinkStreams(bus: dialing.bus, accepted: false)
            accepting.onRefused = { [weak self] reason in self?.acceptingRefused = reason }
        }

        /// A stream the dialing side opens and the accepting side takes, with their idle bounds.
        func openStream(idleTimeout: Duration = .seconds(30),
                        acceptingIdleTimeout: Duration = .seconds(30)) throws -> (dialing: LinkStream, accepting: LinkStream) {
            let dialing = try XCTUnwrap(dialingStreams.makeStream(idleTimeout: idleTimeout))
            XCTAssertTrue(acceptingStreams.admits(dialing.id))
            return (dialing, acceptingStreams.accept(dialing.id, idleTimeout: acceptingIdleTimeout))
        }

        /// The accepting end's `org.baton.Device1`, served through the real `DeviceService`.
        private var service: DeviceService?

        /// Serves `org.baton.Device1` on the accepting end with `handler`, so that the dialing
        /// end's `LinkStreams.open` is answered as a device answers it.
        func serve(with handler: StreamTakingDevice) {
            let service = DeviceService(handler: handler, peer: DevicePeer(id: "B", serial: "00"))
            service.streams = acceptingStreams
            accepting.bus.export(path: DeviceInterface.path, info: DeviceInterface.info) { [weak handler, weak service] call in
                guard let service else { return }
                handler?.serve(call, with: service)
            }
            self.service = service
        }

        func close() {
            accepting.close()
            dialing.close()
        }
    }

    /// The accepting end's device for `LinkStreams.open`: it takes each stream and holds the
    /// `OpenStreams` answer until told (`holdsAnswers`), or refuses the open.
    @MainActor
    final class StreamTakingDevice: InProcessDevice {
        var refuses = false
        var holdsAnswers = false
        /// The streams it took, and the `OpenStreams` calls it has not answered yet.
        private(set) var taken: [LinkStream] = []
        private(set) var held: [(call: MethodCall, sequence: UInt64, id: UInt32)] = []
        /// How many `OpenStreams` it was asked.
        private(set) var openRequests = 0

        override func serve(_ call: MethodCall, with service: DeviceService) {
            guard case .openStreams(let sequence, let id)? = try? DeviceMethod(call) else { return super.serve(call, with: service) }
            openRequests += 1
            guard holdsAnswers, let streams = service.streams else { return super.serve(call, with: service) }
            guard streams.admits(id) else { return }
            taken.append(streams.accept(id, idleTimeout: .seconds(30)))
            held.append((call, sequence, id))
        }

        /// Answers the held `OpenStreams` calls: they opened.
        func answerHeld() {
            for (call, sequence, id) in held { DBusAnswer<DeviceMethod>(call).reply(.openStreams(sequence: sequence, stream: id), ()) }
            held = []
        }

        override func openStreams(sequence: UInt64, stream id: UInt32, on streams: LinkStreams) throws(DeviceServiceError) -> @MainActor () -> Void {
            if refuses { throw .refused("no streams for you") }
            let stream = streams.accept(id, idleTimeout: .seconds(30))
            taken.append(stream)
            return {}
        }
    }

    /// A device for `pair`'s accepting end.
    @MainActor
    private static func device(_ identity: DeviceIdentity, serving pair: LinkPair) -> StreamTakingDevice {
        let device = StreamTakingDevice(identity: identity, title: "Streams")
        pair.serve(with: device)
        return device
    }

    /// Two devices of a new group.
    private func devices() throws -> (DeviceIdentity, DeviceIdentity) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        return (try authority.issueDevice(named: "A"), try authority.issueDevice(named: "B"))
    }

    /// Runs `body` on the main actor with a link between two devices of one group
    /// (`makePair`), closed after it; `body` also gets the accepting device's identity.
    private func withLink(_ body: @MainActor (LinkPair, DeviceIdentity) throws -> Void) throws {
        let (a, b) = try devices()
        try MainActor.assumeIsolated {
            let pair = try Self.makePair(a, b)
            defer { pair.close() }
            try body(pair, a)
        }
    }

    /// A link between `a` (accepting) and `b` (dialing), both ends in this process.
    @MainActor
    private static func makePair(_ a: DeviceIdentity, _ b: DeviceIdentity) throws -> LinkPair {
        let listener = try SecureListener(identity: a, credential: try TLSCredential(identity: a))
        defer { listener.close() }
        let credential = try TLSCredential(identity: b)
        let server = Outcome { try await PeerBus.open(over: try await listener.accept()) }
        let client = Outcome { try await PeerBus.open(over: try await SecureChannel.connect(host: "127.0.0.1", port: listener.port,
                                                                                            identity: b, credential: credential)) }
        XCTAssertTrue(MainLoop.run(until: { server.done && client.done }, timeout: .seconds(15)))
        let pair = LinkPair(accepting: try server.get(), dialing: try client.get())
        pair.accepting.startMessageProcessing()
        pair.dialing.startMessageProcessing()
        return pair
    }

    /// Waits on the loop for `body`'s outcome.
    @MainActor
    private static func outcome<T>(_ body: @escaping @MainActor () async throws -> T) -> Outcome<T> {
        let outcome = Outcome(body)
        spin(until: { outcome.done })
        return outcome
    }

    /// A full `StreamData` (`LinkStreams.chunk` bytes, the largest stream id and serial) is at
    /// most 64 KiB on the wire: four TLS records of 16 KiB, not a fifth for the last hundred bytes.
    func testAFullStreamDataMessageFitsFourTLSRecords() throws {
        let signal = DeviceSignal.streamData(stream: .max, bytes: Data(count: LinkStreams.chunk))
        let message = g_dbus_message_new_signal(DeviceSignal.path, DeviceSignal.interface, signal.member.rawValue)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(signal.arguments).makeGVariant())
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        g_dbus_message_set_serial(message, .max)
        var size: gsize = 0
        let blob = try XCTUnwrap(g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil))
        g_free(blob)
        XCTAssertLessThanOrEqual(Int(size), 4 * 16 * 1024)
        XCTAssertGreaterThan(Int(size), 4 * 16 * 1024 - 64, "the chunk leaves more room than the header needs")
    }

    /// Request, then response: bytes go both ways on one stream, and each side's
    /// `finishWriting()` is the other's end of the stream (an empty read).
    func testBytesGoBothWaysAndFinishingWritingEndsTheOtherSidesReading() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            let exchange = Self.outcome { () async throws -> (Data, Data) in
                try await dialing.write(Data("request".utf8))
                try await dialing.finishWriting()
                var request = Data()
                while case let chunk = try await accepting.read(maxLength: 3), !chunk.isEmpty { request += chunk }
                try await accepting.write(Data("response".utf8))
                try await accepting.finishWriting()
                var response = Data()
                while case let chunk = try await dialing.read(maxLength: 1000), !chunk.isEmpty { response += chunk }
                return (request, response)
            }
            let (request, response) = try exchange.get()
            XCTAssertEqual(String(decoding: request, as: UTF8.self), "request")
            XCTAssertEqual(String(decoding: response, as: UTF8.self), "response")
            XCTAssertEqual(pair.dialingStreams.count, 0, "a stream finished both ways is forgotten on both ends")
            XCTAssertEqual(pair.acceptingStreams.count, 0)
        }
    }

    /// Flow control: a reader that reads nothing holds exactly one window of a large write, and
    /// the writer waits; once it reads, the whole transfer arrives intact, in order.
    func testAReaderThatDoesNotReadHoldsOneWindowAndALargeTransferArrivesIntact() throws {
        // Made before the link: on a loaded machine, making it (a debug build's 20 million
        // steps) can hold the loop past the link's authentication deadline.
        let size = 20 * 1024 * 1024 + 17
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) })
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            let writing = Outcome { () async throws -> Void in
                try await dialing.write(data)
                try await dialing.finishWriting()
            }
            spin(until: { accepting.buffered == LinkStreams.window })
            XCTAssertFalse(writing.done, "the writer waits for credit")
            let reading = Self.outcome { () async throws -> Data in
                var received = Data()
                while case let chunk = try await accepting.read(maxLength: 256 * 1024), !chunk.isEmpty {
                    XCTAssertLessThanOrEqual(accepting.buffered, LinkStreams.window)
                    received += chunk
                }
                return received
            }
            spin(until: { writing.done })
            XCTAssertNoThrow(try writing.get())
            XCTAssertEqual(try reading.get(), data)
        }
    }

    /// A read with nothing arriving for the idle bound fails with `TransportError.idle` and
    /// resets the stream: the other side's read fails too, and the link stays up.
    func testAReadThatGetsNothingFailsAfterTheIdleBoundAndResetsTheStream() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream(idleTimeout: .seconds(1), acceptingIdleTimeout: .seconds(600))
            let idle = Self.outcome { try await dialing.read(maxLength: 100) }
            guard case .idle? = idle.error as? TransportError else { return XCTFail("\(String(describing: idle.value))") }
            let other = Self.outcome { try await accepting.read(maxLength: 100) }
            XCTAssertNotNil(other.error, "the other side's read fails: \(String(describing: other.value))")
            let ping = Self.outcome { try await pair.dialing.ping() }
            XCTAssertNoThrow(try ping.get(), "the link is still up")
        }
    }

    /// The link closing in the middle of a transfer fails both sides' reads and writes; nothing
    /// waits for the idle bound.
    func testTheLinkClosingMidStreamFailsBothSides() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream(idleTimeout: .seconds(600), acceptingIdleTimeout: .seconds(600))
            let writing = Outcome { try await dialing.write(Data(count: 4 * LinkStreams.window)) }
            spin(until: { accepting.buffered == LinkStreams.window })
            pair.dialing.close()
            spin(until: { writing.done })
            XCTAssertNotNil(writing.error, "the write fails")
            let read = Self.outcome { try await accepting.read(maxLength: 100) }
            XCTAssertNotNil(read.error, "the other side's read fails: \(String(describing: read.value))")
            let late = Self.outcome { try await dialing.write(Data([1])) }
            XCTAssertNotNil(late.error, "a write after the link went fails")
        }
    }

    /// `finishWriting()` returns once the peer has everything written, so a writer whose link
    /// closes right after (an app that exits once it has sent, as the Mail sample does) loses
    /// nothing: the reader still reads it all, then the end.
    func testWhatWasWrittenBeforeFinishingIsReadAfterTheLinkCloses() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            // One window: the writer finishes without waiting for the reader to read.
            let data = Data((0..<LinkStreams.window).map { UInt8(truncatingIfNeeded: $0 % 253) })
            let writing = Self.outcome { () async throws -> Void in
                try await dialing.write(data)
                try await dialing.finishWriting()
            }
            XCTAssertNoThrow(try writing.get())
            pair.dialing.close()
            spin(until: { pair.accepting.bus.isClosed })
            let reading = Self.outcome { () async throws -> Data in
                var received = Data()
                while case let chunk = try await accepting.read(maxLength: 256 * 1024), !chunk.isEmpty { received += chunk }
                return received
            }
            XCTAssertEqual(try reading.get(), data)
        }
    }

    /// Bytes that cross this side's close are dropped: a stream closed here may still get what
    /// the peer sent before it heard, and that is not a protocol violation.
    func testBytesForAStreamClosedHereAreDroppedAndTheLinkStays() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            accepting.close()
            pair.dialingStreams.emit(.streamData(stream: dialing.id, bytes: Data(count: 1000)))
            let ping = Self.outcome { try await pair.dialing.ping() }
            XCTAssertNoThrow(try ping.get())
            XCTAssertNil(pair.acceptingRefused)
            XCTAssertEqual(pair.acceptingStreams.droppedBytes, 1000, "what was dropped is counted")
            let write = Self.outcome { try await dialing.write(Data([1])) }
            XCTAssertNotNil(write.error, "the closed stream's writer fails: \(String(describing: write.value))")
        }
    }

    /// Bytes for closed streams are dropped only up to what honest traffic can leave in flight
    /// (a window for each stream opened): a peer that keeps sending on a stream closed here
    /// past that breaks the protocol, and the link is closed, so dropping costs bounded work.
    func testBytesForAClosedStreamPastItsWindowCloseTheLink() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            accepting.close()
            let chunk = Data(count: LinkStreams.chunk)
            var sent = 0
            while sent + chunk.count <= LinkStreams.window {
                pair.dialingStreams.emit(.streamData(stream: dialing.id, bytes: chunk))
                sent += chunk.count
            }
            let ping = Self.outcome { try await pair.dialing.ping() }
            XCTAssertNoThrow(try ping.get(), "one window dropped: the link stays")
            XCTAssertNil(pair.acceptingRefused)
            XCTAssertEqual(pair.acceptingStreams.droppedBytes, sent)
            pair.dialingStreams.emit(.streamData(stream: dialing.id, bytes: chunk))
            spin(until: { pair.accepting.bus.isClosed })
            XCTAssertEqual(pair.acceptingRefused, .malformedMessage)
            XCTAssertEqual(pair.acceptingStreams.droppedBytes, sent + chunk.count)
        }
    }

    /// The cap on open streams is per side: each side may open `LinkStreams.maximumStreams` of
    /// its own at once, whatever the other opened, so two sides opening at the same moment never
    /// look like a violation to each other; past its own cap a side does not open one.
    func testEachSideMayOpenUpToTheCapOfItsOwnStreams() throws {
        try withLink { pair, _ in
            var streams: [LinkStream] = []
            for _ in 0..<LinkStreams.maximumStreams {
                let dialing = try XCTUnwrap(pair.dialingStreams.makeStream(idleTimeout: .seconds(30)))
                XCTAssertTrue(pair.acceptingStreams.admits(dialing.id))
                let accepting = try XCTUnwrap(pair.acceptingStreams.makeStream(idleTimeout: .seconds(30)))
                XCTAssertTrue(pair.dialingStreams.admits(accepting.id))
                streams += [dialing, pair.acceptingStreams.accept(dialing.id, idleTimeout: .seconds(30)),
                            accepting, pair.dialingStreams.accept(accepting.id, idleTimeout: .seconds(30))]
            }
            XCTAssertEqual(Set(streams.map(\.id)).count, 2 * LinkStreams.maximumStreams, "the two sides' ids never collide")
            XCTAssertNil(pair.dialingStreams.makeStream(idleTimeout: .seconds(30)), "past its own cap a side opens no more")
            let ping = Self.outcome { try await pair.dialing.ping() }
            XCTAssertNoThrow(try ping.get())
            XCTAssertNil(pair.acceptingRefused)
        }
    }

    /// Pipelined opening: the opener's request follows `OpenStreams` on the link without waiting
    /// for its answer, and is delivered — here the device reads the whole request before it
    /// answers at all. Then the response comes back on the same stream.
    func testBytesThatFollowOpenStreamsBeforeItsAnswerAreDelivered() throws {
        try withLink { pair, a in
            let device = Self.device(a, serving: pair)
            device.holdsAnswers = true
            let dialing = try XCTUnwrap(pair.dialingStreams.open(sequence: 1, idleTimeout: .seconds(30), timeout: .seconds(30)))
            let writing = Outcome { () async throws -> Void in
                try await dialing.write(Data("request".utf8))
                try await dialing.finishWriting()
            }
            spin(until: { !device.taken.isEmpty })
            let accepting = device.taken[0]
            let request = Self.outcome { () async throws -> Data in
                var request = Data()
                while case let chunk = try await accepting.read(maxLength: 1000), !chunk.isEmpty { request += chunk }
                return request
            }
            XCTAssertEqual(String(decoding: try request.get(), as: UTF8.self), "request")
            XCTAssertEqual(device.held.count, 1, "the whole request came before the answer went")
            spin(until: { writing.done })
            XCTAssertNoThrow(try writing.get(), "finishing does not wait for the answer either")
            device.answerHeld()
            let response = Self.outcome { () async throws -> Data in
                try await accepting.write(Data("response".utf8))
                try await accepting.finishWriting()
                var response = Data()
                while case let chunk = try await dialing.read(maxLength: 1000), !chunk.isEmpty { response += chunk }
                return response
            }
            XCTAssertEqual(String(decoding: try response.get(), as: UTF8.self), "response")
            XCTAssertNil(pair.acceptingRefused)
            XCTAssertEqual(pair.dialingStreams.count, 0)
            XCTAssertEqual(pair.acceptingStreams.count, 0)
        }
    }

    /// An open the device refuses after the opener has already written: the opener's stream
    /// fails with the Handoff error of the refusal (`.userActivityHandoffFailed`), as a stream
    /// of a refused connection reports it, and is forgotten on both ends; what was written is
    /// dropped by the device, not taken as a violation, and the link stays.
    func testARefusedOpenFailsTheStreamWithItsHandoffErrorAndFreesIt() throws {
        try withLink { pair, a in
            let device = Self.device(a, serving: pair)
            device.refuses = true
            let dialing = try XCTUnwrap(pair.dialingStreams.open(sequence: 1, idleTimeout: .seconds(30), timeout: .seconds(30)))
            // In the same flight as OpenStreams, before any answer can have come back (what
            // `write` sends first, emitted here at once so that it surely precedes the answer).
            pair.dialingStreams.emit(.streamData(stream: dialing.id, bytes: Data(count: LinkStreams.firstChunk)))
            let read = Self.outcome { try await dialing.read(maxLength: 1000) }
            XCTAssertEqual((read.error as? CocoaError)?.code, .userActivityHandoffFailed, "\(String(describing: read.error))")
            let write = Self.outcome { try await dialing.write(Data([1])) }
            XCTAssertEqual((write.error as? CocoaError)?.code, .userActivityHandoffFailed, "later writes fail the same way")
            XCTAssertEqual(pair.dialingStreams.count, 0, "the refused stream is forgotten")
            XCTAssertEqual(pair.acceptingStreams.count, 0)
            let ping = Self.outcome { try await pair.dialing.ping() }
            XCTAssertNoThrow(try ping.get(), "the link is still up")
            XCTAssertNil(pair.acceptingRefused)
            XCTAssertEqual(device.openRequests, 1)
        }
    }

    /// An open not answered within its timeout fails the stream with
    /// `.userActivityRemoteApplicationTimedOut`, and resets it: the device, which took it but
    /// never answered, has it forgotten too.
    func testAnOpenNotAnsweredInTimeFailsAndResetsTheStream() throws {
        try withLink { pair, a in
            let device = Self.device(a, serving: pair)
            device.holdsAnswers = true
            let dialing = try XCTUnwrap(pair.dialingStreams.open(sequence: 1, idleTimeout: .seconds(600), timeout: .seconds(1)))
            let read = Self.outcome { try await dialing.read(maxLength: 1000) }
            XCTAssertEqual((read.error as? CocoaError)?.code, .userActivityRemoteApplicationTimedOut, "\(String(describing: read.error))")
            spin(until: { pair.acceptingStreams.count == 0 })
            XCTAssertEqual(pair.dialingStreams.count, 0)
            XCTAssertNil(pair.acceptingRefused)
        }
    }

    /// Bytes for an id that was never opened still break the protocol, even right after a
    /// pipelined open whose bytes are fine: the link is closed, as a refusal.
    func testBytesForAnIdNeverOpenedCloseTheLinkEvenBesideAPipelinedOpen() throws {
        try withLink { pair, a in
            _ = Self.device(a, serving: pair)
            let opened = try XCTUnwrap(pair.dialingStreams.open(sequence: 1, idleTimeout: .seconds(30), timeout: .seconds(30)))
            let written = Self.outcome { try await opened.write(Data("fine".utf8)) }
            XCTAssertNoThrow(try written.get())
            let never = try XCTUnwrap(pair.dialingStreams.makeStream(idleTimeout: .seconds(30)), "made here, never opened there")
            pair.dialingStreams.emit(.streamData(stream: never.id, bytes: Data([1, 2, 3])))
            spin(until: { pair.accepting.bus.isClosed })
            XCTAssertEqual(pair.acceptingRefused, .malformedMessage)
        }
    }

    /// Memory per link: a peer that opens every stream it may and fills each, while this side's
    /// app reads nothing, makes the link hold `LinkStreams.maximumBufferedBytes` (a window a
    /// stream), not more; the link stays up, and the next byte on any of them closes it.
    func testAPeerFloodingEveryStreamMakesTheLinkHoldAtMostOneWindowEach() throws {
        try withLink { pair, _ in
            let streams = try (0..<LinkStreams.maximumStreams).map { _ in try pair.openStream() }
            XCTAssertNil(pair.dialingStreams.makeStream(idleTimeout: .seconds(30)), "no stream past the cap")
            let chunk = Data(count: LinkStreams.chunk)
            for (dialing, _) in streams {
                var sent = 0
                while sent < LinkStreams.window {
                    let bytes = chunk.prefix(LinkStreams.window - sent)
                    pair.dialingStreams.emit(.streamData(stream: dialing.id, bytes: bytes))
                    sent += bytes.count
                }
            }
            let ping = Self.outcome { try await pair.dialing.ping() }
            XCTAssertNoThrow(try ping.get(), "all within their windows: the link stays")
            XCTAssertEqual(streams.map(\.accepting.buffered).reduce(0, +), LinkStreams.maximumBufferedBytes)
            XCTAssertEqual(LinkStreams.maximumBufferedBytes, 8 * 1024 * 1024)
            pair.dialingStreams.emit(.streamData(stream: streams[3].dialing.id, bytes: Data([1])))
            spin(until: { pair.accepting.bus.isClosed })
            XCTAssertEqual(pair.acceptingRefused, .malformedMessage)
            XCTAssertEqual(streams.map(\.accepting.buffered).reduce(0, +), 0, "what the link held is dropped")
        }
    }

    /// A peer that sends past the window it was given, while this side reads nothing, breaks
    /// the protocol: the link is closed (a refusal), and what it sent is not kept.
    func testSendingPastTheWindowClosesTheLink() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            let chunk = Data(count: LinkStreams.chunk)
            for _ in 0...(LinkStreams.window / LinkStreams.chunk) { pair.dialingStreams.emit(.streamData(stream: dialing.id, bytes: chunk)) }
            spin(until: { pair.accepting.bus.isClosed })
            XCTAssertEqual(pair.acceptingRefused, .malformedMessage)
            XCTAssertEqual(accepting.buffered, 0, "the flood is not held")
        }
    }

    // MARK: Data messages read without GLib (DBusDataSignal)

    /// A `StreamData` message for stream `id` as this side writes it, `change`d.
    private static func dataMessage(_ id: UInt32, _ bytes: Data, serial: UInt32 = 1_000_000,
                                    _ change: (inout [UInt8], _ bodyStart: Int) -> Void = { _, _ in }) -> [UInt8] {
        let (path, interface, member) = (DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue)
        let size = DBusDataSignal.size(path: path, interface: interface, member: member, bytes: bytes.count)
        var message = [UInt8](repeating: 0, count: size)
        message.withUnsafeMutableBytes { buffer in
            bytes.withUnsafeBytes {
                DBusDataSignal.write(into: buffer, serial: serial, path: path, interface: interface, member: member, number: id, bytes: $0)
            }
        }
        change(&message, size - 8 - bytes.count)
        return message
    }

    /// `StreamData` encoded by GLib with `arguments`, in `order`, with a sender header field
    /// if `sender` is given (as another D-Bus library could send it).
    private static func glibMessage(_ arguments: [Variant], order: GDBusMessageByteOrder, sender: String? = nil) throws -> [UInt8] {
        let message = g_dbus_message_new_signal(DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        if let sender { g_dbus_message_set_sender(message, sender) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        g_dbus_message_set_serial(message, 1_000_000)
        g_dbus_message_set_byte_order(message, order)
        var size: gsize = 0
        let blob = try XCTUnwrap(g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil))
        defer { g_free(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: Int(size)))
    }

    private static func setU32(_ message: inout [UInt8], at offset: Int, _ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { for i in 0..<4 { message[offset + i] = $0[i] } }
    }

    /// Hostile `StreamData` on a link, each within the size caps: a header field whose length
    /// runs past the header, header fields announced shorter than they are, an array longer
    /// than the body, the member with the wrong signature (`ay`, `us`). Each closes the link as
    /// a refusal (`.malformedMessage`), and no byte of it reaches the stream.
    func testMalformedStreamDataClosesTheLink() throws {
        let (a, b) = try devices()
        let bytes = Data(count: 20 * 1024)  // large: read into a buffer of its own
        try MainActor.assumeIsolated {
            let cases: [(String, (UInt32) throws -> [UInt8])] = [
                ("a path running past the header", { id in Self.dataMessage(id, bytes) { m, _ in Self.setU32(&m, at: 20, 4096) } }),
                ("header fields cut short", { id in Self.dataMessage(id, bytes) { m, _ in Self.setU32(&m, at: 12, 24) } }),
                ("an array longer than the body", { id in Self.dataMessage(id, bytes) { m, body in Self.setU32(&m, at: body + 4, 30 * 1024) } }),
                ("an array longer than the body, small", { id in Self.dataMessage(id, Data(count: 3)) { m, body in Self.setU32(&m, at: body + 4, 4) } }),
                ("the signature ay", { _ in try Self.glibMessage([.bytes(bytes)], order: G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN) }),
                ("the signature us", { id in try Self.glibMessage([.uint32(id), .string("text")], order: G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN) }),
            ]
            for (what, message) in cases {
                let pair = try Self.makePair(a, b)
                defer { pair.close() }
                let (dialing, accepting) = try pair.openStream()
                try message(dialing.id).withUnsafeBytes { pair.dialing.bus.writeRaw($0) }
                spin(until: { pair.accepting.bus.isClosed })
                XCTAssertEqual(pair.acceptingRefused, .malformedMessage, what)
                XCTAssertEqual(accepting.buffered, 0, what)
            }
        }
    }

    /// `StreamData` as other D-Bus libraries may write it arrives, in order with this side's
    /// own: big-endian (read directly, as this side's), this side's own large message (read
    /// into a buffer of its own and handed on without a copy), and one with a header field this
    /// side does not write (a sender: left to GLib's decoding).
    func testStreamDataAsOtherLibrariesWriteItArrivesInOrder() throws {
        try withLink { pair, _ in
            let (dialing, accepting) = try pair.openStream()
            let parts = [Data(repeating: 1, count: 10), Data(repeating: 2, count: 40 * 1024), Data(repeating: 3, count: 5)]
            try Self.glibMessage([.uint32(dialing.id), .bytes(parts[0])], order: G_DBUS_MESSAGE_BYTE_ORDER_BIG_ENDIAN)
                .withUnsafeBytes { pair.dialing.bus.writeRaw($0) }
            Self.dataMessage(dialing.id, parts[1]).withUnsafeBytes { pair.dialing.bus.writeRaw($0) }
            try Self.glibMessage([.uint32(dialing.id), .bytes(parts[2])], order: G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN, sender: ":1.5")
                .withUnsafeBytes { pair.dialing.bus.writeRaw($0) }
            let expected = parts.reduce(Data(), +)
            spin(until: { accepting.buffered == expected.count || pair.accepting.bus.isClosed })
            var read = Data()
            while read.count < expected.count {
                let chunk = Self.outcome { try await accepting.read(maxLength: expected.count) }
                read += try chunk.get()
            }
            XCTAssertEqual(read, expected)
            XCTAssertFalse(pair.accepting.bus.isClosed)
        }
    }
}
