import BatonContinuity
import Foundation

// The `--ice-link` mode: a device reaching one peer beyond its network (docs/PROTOCOL.md, 7.1),
// for NatLinkTests on the NAT topology (NatTopology):
//
//     DeviceProbe DIR --ice-link --exchange FOLDER --peer-device ID [--relay-only] [--broker]
//                 [--connect-deadline SECONDS] [--bytes N]
//
// It gathers with the group's relay settings held in DIR (STUN and TURN), writes its encoded
// IceDescription to FOLDER/<its identifier>.ice and prints `ice description PATH`; then waits for
// `remote PATH` on standard input (the peer's file, handed over by the test), connects, prints
// `ice selected PATH-KIND`, opens the device link over the stream (`SecureChannel.open(over:)`:
// the admission gate and mutual TLS 1.3) and prints `ice channel PATH-KIND peer ID at SECONDS`
// (the Unix time, for the test's measure). With `--broker` the descriptions go through the
// group's MQTT broker instead (`BrokerSignalling`, its settings from DIR), and no file is read. Then bytes go both ways: the controlling side sends N
// (default 100 000; byte i is i % 251) and reads the answer to its end, the controlled side reads
// the request to its end and answers N; each prints `ice received COUNT intact` (or
// `… wrong-at INDEX`), then `ice done`. A failure prints `ice failed STAGE CASE` (STAGE one of
// `settings`, `gather`, `exchange`, `connect`, `channel`, `bytes`; CASE the error's case, as
// `noRelayCandidate`) and the probe exits with status 1. It ends at `quit` or the end of its input.

/// The `--ice-link` mode (see above).
@MainActor
enum IceLinkProbe {
    /// The peer's description file, once the test hands it over.
    private static var remote: CheckedContinuation<String, Never>?
    private static var remotePath: String?
    /// The broker's client, with `--broker`.
    private static var signalling: BrokerSignalling?
    /// How long the peer's description may take to come (through the test or the broker).
    private static let exchangeDeadline: Duration = .seconds(90)
    /// Held, never resumed, once the link is done: the probe stays until `quit`.
    private static var holding: CheckedContinuation<Void, Never>?

    /// Runs the mode with the probe's arguments (DIR first); never returns.
    static func run(_ arguments: [String]) -> Never {
        let directory = URL(fileURLWithPath: arguments[0])
        let option = { (flag: String) in arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
        guard let exchange = option("--exchange").map(URL.init(fileURLWithPath:)), let peer = option("--peer-device") else {
            say("usage: DeviceProbe DIR --ice-link --exchange FOLDER --peer-device ID")
            exit(2)
        }
        let deadline = Duration.milliseconds(Int((option("--connect-deadline").flatMap(Double.init) ?? 30) * 1000))
        let bytes = option("--bytes").flatMap(Int.init) ?? 100_000
        readCommands()
        Task { @MainActor in
            await link(directory: directory, exchange: exchange, peer: peer, relayOnly: arguments.contains("--relay-only"),
                       throughBroker: arguments.contains("--broker"), deadline: deadline, bytes: bytes)
        }
        MainLoop.run()
        exit(0)
    }

    /// Lines on standard input: `remote PATH`, `quit`.
    private static func readCommands() {
        var line: [UInt8] = []
        MainLoop.whenReadable(STDIN_FILENO) {
            var byte: UInt8 = 0
            guard read(STDIN_FILENO, &byte, 1) == 1 else { exit(0) }
            guard byte == UInt8(ascii: "\n") else {
                if line.count < 4096 { line.append(byte) }
                return .again
            }
            let command = String(decoding: line, as: UTF8.self)
            line = []
            if command == "quit" { exit(0) }
            if command.hasPrefix("remote ") {
                let path = String(command.dropFirst("remote ".count))
                if let waiting = remote {
                    remote = nil
                    waiting.resume(returning: path)
                } else {
                    remotePath = path
                }
            }
            return .again
        }
    }

    private static func fail(_ stage: String, _ error: any Error) {
        // What the error says, for a person reading a failed test (tests read only the line after).
        say("ice detail \(PrintableText.escaped(String(describing: error)))")
        say("ice failed \(stage) \(caseName(error))")
        exit(1)
    }

    private static func link(directory: URL, exchange: URL, peer: String, relayOnly: Bool, throughBroker: Bool,
                             deadline: Duration, bytes: Int) async {
        let identity: DeviceIdentity, configuration: IceConfiguration, credential: TLSCredential
        do {
            identity = try DeviceIdentity.load(from: directory)
            guard let settings = try RelaySettings.load(from: directory) else { return fail("settings", CocoaError(.fileNoSuchFile)) }
            configuration = IceConfiguration(relaySettings: settings, deviceIdentifier: identity.identifier, relayOnly: relayOnly)
            credential = try TLSCredential(identity: identity)
        } catch {
            return fail("settings", error)
        }
        let role = IceSession.Role.for(local: identity.identifier, remote: peer)
        let session: IceSession, description: IceDescription
        do {
            session = try IceSession(configuration: configuration, role: role)
            description = try await session.localDescription()
            let file = exchange.appendingPathComponent("\(identity.identifier).ice")
            try description.encoded().write(to: file, options: .atomic)
            say("ice description \(file.path)")
        } catch {
            return fail("gather", error)
        }
        defer { session.close() }
        let remoteDescription: IceDescription
        let exchangeTimer = MainLoop.after(exchangeDeadline) { say("ice failed exchange timedOut"); exit(1) }
        do {
            if throughBroker {
                remoteDescription = try IceDescription.decode(try await exchangeThroughBroker(
                    directory: directory, identity: identity, peer: peer, ours: description.encoded()))
            } else {
                let path: String
                if let given = remotePath { path = given } else { path = await withCheckedContinuation { remote = $0 } }
                remoteDescription = try IceDescription.decode(try readCapped(path, limit: IceDescription.maximumEncodedSize))
            }
        } catch {
            return fail("exchange", error)
        }
        exchangeTimer.cancel()
        let stream: IceStream
        do {
            stream = try await session.connect(remote: remoteDescription, deadline: deadline)
            say("ice selected \((session.selectedPath ?? stream.path).rawValue)")
        } catch {
            return fail("connect", error)
        }
        let channel: SecureChannel
        do {
            channel = try await SecureChannel.open(over: stream, role: role, identity: identity, credential: credential)
            say("ice channel \((session.selectedPath ?? stream.path).rawValue) peer \(PrintableText.escaped(channel.peerIdentifier)) at "
                + String(format: "%.3f", Date().timeIntervalSince1970))
        } catch {
            return fail("channel", error)
        }
        do {
            // Both ways at once, a read pending all along: libnice handles the stream's packets
            // (acknowledgements included) only while it is read (docs/PROTOCOL.md, 7.1). Each side
            // finishes writing once it has sent its part and received the peer's, so neither
            // side's reader ends (at the peer's end) before its own bytes are through.
            let pattern = Data((0..<bytes).map { UInt8($0 % 251) })
            let timer = MainLoop.after(.seconds(90)) { say("ice failed bytes timedOut"); exit(1) }
            defer { timer.cancel() }
            let progress = ReadProgress(target: bytes)
            let reading = Task { @MainActor in try await readToEnd(channel, limit: bytes + 1, progress: progress) }
            try await channel.send(pattern)
            await progress.reached()
            try await channel.finishWriting()
            report(received: try await reading.value)
            say("ice done")
        } catch {
            return fail("bytes", error)
        }
        withExtendedLifetime((channel, stream)) {}
        // Kept open (the peer may still be reading) until `quit`.
        await withCheckedContinuation { holding = $0 }
    }

    /// Sends `ours` to `peer` through the group's broker (`BrokerSignalling`, sealed and signed)
    /// once connected, and gives the first description that comes from `peer`, sending `ours`
    /// again then (MQTT QoS 0: the peer may not have been connected at the first one). Prints
    /// `ice broker connected`, or `ice broker connectFailed CASE` at each failed attempt.
    private static func exchangeThroughBroker(directory: URL, identity: DeviceIdentity, peer: String, ours: Data) async throws -> Data {
        guard let settings = try BrokerSignallingSettings.load(from: directory) else { throw CocoaError(.fileNoSuchFile) }
        let broker = try BrokerSignalling(identity: identity, identityFolder: directory, settings: settings)
        signalling = broker
        return await withCheckedContinuation { continuation in
            var taken = false
            broker.onEvent = { [unowned broker] event in
                switch event {
                case .connected:
                    say("ice broker connected")
                    try? broker.send(ours, to: peer)
                case .connectFailed(let error, _), .disconnected(let error, _):
                    say("ice broker connectFailed \(caseName(error))")
                case .refused:
                    say("ice broker refused")
                }
            }
            broker.onReceive = { [unowned broker] from, blob in
                guard from == peer, !taken else { return }
                taken = true
                try? broker.send(ours, to: peer)
                continuation.resume(returning: blob)
            }
            broker.start()
        }
    }

    private static func readToEnd(_ channel: SecureChannel, limit: Int, progress: ReadProgress) async throws -> Data {
        var received = Data()
        defer { progress.ended() }
        while received.count <= limit {
            let chunk = try await channel.receive(maxLength: 16_384)
            if chunk.isEmpty { break }
            received += chunk
            progress.received(received.count)
        }
        return received
    }

    private static func report(received: Data) {
        let misplaced = received.indices.first { received[$0] != UInt8(($0 - received.startIndex) % 251) }
        say("ice received \(received.count) " + (misplaced.map { "wrong-at \($0 - received.startIndex)" } ?? "intact"))
    }

    /// The file at `path`, refused if larger than `limit` (checked before it is read).
    private static func readCapped(_ path: String, limit: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else { throw IceError.descriptionTooLarge(data.count) }
        return data
    }

    /// The error's case, as `noRelayCandidate` (the type's name for an error of another kind).
    private static func caseName(_ error: any Error) -> String {
        if let ice = error as? IceError {
            switch ice {
            case .descriptionTooLarge: return "descriptionTooLarge"
            case .invalidDescription: return "invalidDescription"
            case .unresolvableServer: return "unresolvableServer"
            case .agentFailed: return "agentFailed"
            case .gatheringTimedOut: return "gatheringTimedOut"
            case .noCandidates: return "noCandidates"
            case .noRelayCandidate: return "noRelayCandidate"
            case .connectivityFailed: return "connectivityFailed"
            case .connectTimedOut: return "connectTimedOut"
            case .closed: return "closed"
            }
        }
        return Mirror(reflecting: error).children.first?.label.map { "\(type(of: error)).\($0)" } ?? "\(type(of: error))"
    }
}

/// How much a reader has received, for a writer that waits until the peer's bytes are in.
@MainActor
final class ReadProgress {
    private let target: Int
    private var done = false
    private var waiter: CheckedContinuation<Void, Never>?

    init(target: Int) { self.target = target }

    /// `count` bytes are in so far.
    func received(_ count: Int) { if count >= target { ended() } }

    /// The reader stopped (at the end, or failing): nothing more will come.
    func ended() {
        done = true
        waiter?.resume()
        waiter = nil
    }

    /// Returns once `target` bytes are in or the reader stopped.
    func reached() async {
        guard !done else { return }
        await withCheckedContinuation { waiter = $0 }
    }
}
