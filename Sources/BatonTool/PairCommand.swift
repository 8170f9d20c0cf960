import ArgumentParser
import BatonAgent
import BatonContinuity
import Foundation

/// `baton pair`: a new device joins the group with a code, its private key never leaving it.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a new device into the group by comparing a code.",
        discussion: """
            On the machine that holds the group's authority, `baton pair --accept` opens a pairing window \
            (for --timeout seconds, one device, three failed attempts), prints where it listens and, beyond \
            loopback, publishes it through avahi-daemon (_baton-pair._tcp, TXT v=1 only). On the new device, \
            `baton pair [HOST:PORT] --name NAME` (without HOST:PORT: the window found through DNS-SD) makes \
            the device's own key, connects, and both \
            sides print a six-digit code derived from their TLS session: answer y on both if the codes are \
            the same. With --code one side instead asks for the code the other side shows and says whether \
            it matches; the other side still asks whether it says so. The new device says its name only \
            after its person's yes. Nothing is \
            written on either side before both confirm; then the new device gets a certificate for its own \
            key, the group's certificate, list and discovery key, and writes its identity to \
            $XDG_CONFIG_HOME/baton/device (or --config DIR/device). Answers are read from standard input, \
            so two servers can pair over SSH. Where this user's agent (batond) runs, `baton pair --accept` \
            opens the window in the agent instead: each request is then also shown as a desktop notification \
            with Accept and Decline, and the first answer, there or here, counts (--no-agent: in this process). \
            The new device tries again, up to 5 times in all, while the window's port refuses or resets \
            its connection or the handshake fails before a code is shown; a "no" or a code that does not \
            match is never tried again.
            """)
    @Argument(help: "The pairing window's address, HOST:PORT (on the new device; default: the one found through DNS-SD).")
    var address: String?
    @Flag(name: .long, help: "Open a pairing window here (this machine holds the group's authority).") var accept = false
    @Option(name: .long, help: "The new device's name (default: this machine's host name).") var name: String?
    @Option(name: .long, help: "Where the window listens, HOST:PORT (default 0.0.0.0:0, any free port).") var listen: String?
    @Flag(name: .long, help: "Type the code the other device shows instead of comparing it.") var code = false
    @Option(name: .long, help: "Seconds the window stays open, or the pairing may take (default 120).") var timeout: Int = 120
    @Flag(name: .long, help: "On the new device: replace an identity already there, moving its files aside.") var force = false
    @Flag(name: .customLong("no-agent"), help: "On the new device: do not start the agent (batond) after joining. With --accept: open the window in this process, not in the agent.") var noAgent = false
    @Option(name: .long, help: "With --accept: the agent's socket (default: $BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket; used when no --config is given).")
    var agent: String?
    @OptionGroup var options: ConfigOption

    func validate() throws {
        guard !(accept && address != nil) else { throw ValidationError("give either --accept (the window) or HOST:PORT (the new device)") }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be 1–3600 seconds, not \(timeout)") }
        if let address { _ = try PeerAddress(parsing: address, from: .argument("address")) }
        if let listen {
            let host = try PeerAddress(parsing: listen, from: .argument("listen"), portZeroAllowed: true).host
            var v4 = in_addr(), v6 = in6_addr()
            guard inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 else {
                throw ValidationError("--listen needs an IP address to listen on, not '\(shown(host))'")
            }
        }
        if accept, name != nil { throw ValidationError("--name is the new device's: give it there") }
    }

    func run() throws {
        let failure = accept ? try openWindowThroughAgent() ?? openWindow() : try join()
        if let failure {
            FileHandle.standardError.write(Data("baton pair: \(failure)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func onLoop(_ body: @escaping @MainActor () async -> String?) -> String? { onToolLoop(body) }

    /// The window opened in the agent that runs for this device, if one does (and neither
    /// `--no-agent` nor `--code`: a notification cannot type); nil to open it here. The
    /// user's own agent serves only the user's own configuration: with `--config`, only the
    /// agent named by `--agent`. Returns `.some(failure)` (nil: paired) when the agent ran it.
    private func openWindowThroughAgent() throws -> String?? {
        guard !noAgent, !code, options.config == nil || agent != nil, let socket = ThroughAgent.runningAgent(agent) else { return nil }
        let address = try listen.map { try PeerAddress(parsing: $0, from: .argument("listen"), portZeroAllowed: true) }
            ?? PeerAddress(host: "0.0.0.0", port: 0)
        let seconds = timeout
        return .some(ThroughAgent.run({ PairThroughAgent(connection: $0, seconds: seconds, listen: address) }, socket: socket))
    }

    private func openWindow() throws -> String? {
        let directory = options.directory
        let authority = try GroupAuthority.load(from: directory)
        let address = try listen.map { try PeerAddress(parsing: $0, from: .argument("listen"), portZeroAllowed: true) }
            ?? PeerAddress(host: "0.0.0.0", port: 0)
        let typing = code, seconds = timeout, lifetime = Duration.seconds(timeout)
        return onLoop {
            let listener: PairingListener
            do { listener = try PairingListener(host: address.host, port: address.port) } catch { return "\(error)" }
            let window = PairingWindow(authority: authority, listener: listener, updating: [directory.deviceDirectory],
                                       lifetime: lifetime, typing: typing) { request in
                let from = request.peerHost.map { " from \(shown($0))" } ?? ""
                // Whatever the newcomer says about who types (unauthenticated), the person here
                // either types its code or compares this one: its flag changes only the words.
                if typing {
                    say("a new device\(from) wants to join group '\(shown(authority.name))'.")
                    return await typeCode(request.code)
                }
                if request.newcomerTypes {
                    say("a new device\(from) wants to join group '\(shown(authority.name))': code \(request.code) (type it on the new device)")
                    return await TerminalAnswers.shared.confirm("Does the new device say 'code \(request.code) matches'? [y/N]")
                }
                say("a new device\(from) wants to join group '\(shown(authority.name))': code \(request.code)")
                return await TerminalAnswers.shared.confirm("Does the new device show \(request.code)? [y/N]")
            }
            window.onEvent = { event in
                switch event {
                case .refused(let refusal): say("refused a new device: \(refusal)")
                case .attemptFailed(let error, let left): say("pairing failed: \(error) (\(left) attempt\(left == 1 ? "" : "s") left)")
                }
            }
            say("pairing window open on \(PeerAddress(host: address.host, port: listener.port)) for \(seconds) s")
            // Beyond loopback the window is published, so the new device finds it without an address.
            // The tool owns the loop: it makes the process's one client of avahi-daemon.
            let advertisement = PeerAddress.isLoopback(address.host) ? nil : PairingAdvertisement(port: listener.port, avahi: AvahiConnection())
            advertisement?.onPublished = { say("published as \($0) (\(PairingAdvertisement.serviceType)): `baton pair` on the new device finds it") }
            advertisement?.onUnavailable = { say("not published through DNS-SD (\($0)): give the new device this machine's address and port") }
            advertisement?.start()
            defer { advertisement?.stop() }
            switch await window.run() {
            case .success(let name):
                say("paired '\(shown(name))': it is a device of group '\(shown(authority.name))' now")
                return nil
            case .failure(let error):
                return "\(error)"
            }
        }
    }

    /// The new device's agent, so it links with the group at once: started for the user's own
    /// configuration (as an app starts it: `AgentAutostart`) unless one runs already or
    /// `--no-agent`; for another folder (`--config`), only said how.
    @MainActor
    private func startAgent(deviceDirectory: URL) async {
        guard !noAgent else { return }
        guard options.config == nil else {
            return say("start its agent with: batond --config \(shown(options.directory.url.path))")
        }
        if ThroughAgent.runningAgent(nil) != nil {
            return say("an agent (batond) already runs here with the identity it had: `baton agent restart` to take the new one")
        }
        do {
            try await AgentAutostart.start(in: .standard())
            // Whether it links is the network's say: `baton status` tells where it listens and
            // whether the group's devices can find it.
            say("started the agent (batond): it links with the group's devices as they find each other; `baton status` shows where it listens and whether discovery works")
        } catch {
            say("could not start the agent (\(error)): `baton agent start` to link with the group's devices")
        }
    }

    private func join() throws -> String? {
        let directory = options.directory.deviceDirectory
        let given = try address.map { try PeerAddress(parsing: $0, from: .argument("address")) }
        let name = self.name ?? ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "device"
        guard GroupAuthority.isAcceptableName(name) else { throw TrustError.invalidDeviceName(name) }
        let replacing = force
        if !replacing, (try? DeviceIdentity.load(from: directory)) != nil || FileManager.default.fileExists(atPath: directory.appendingPathComponent("key.pem").path) {
            throw TrustError.identityExists(path: directory.path)
        }
        if ProcessInfo.processInfo.environment["SSLKEYLOGFILE"] != nil {
            FileHandle.standardError.write(Data("baton pair: warning: SSLKEYLOGFILE is set: this session's secrets (the group's discovery key among them) are written to it\n".utf8))
        }
        let typing = code, lifetime = Duration.seconds(timeout)
        return onLoop {
            do {
                let target: PeerAddress
                if let given {
                    target = given
                } else {
                    say("looking for a pairing window (\(PairingAdvertisement.serviceType))")
                    // The tool owns the loop: it makes the process's one client of avahi-daemon.
                    let windows = try await PairingBrowser.find(within: .seconds(10), avahi: AvahiConnection()).get()
                    guard windows.count == 1, let only = windows.first else {
                        return windows.isEmpty
                            ? "no pairing window found through DNS-SD within 10 s: open one with `baton pair --accept`, or give its HOST:PORT"
                            : "several pairing windows are open (\(windows.map(\.description).joined(separator: ", "))): give one as HOST:PORT"
                    }
                    target = only
                }
                let newcomer = try PairingNewcomer(name: name)
                say("pairing with \(target) as '\(shown(name))'")
                let identity = try await newcomer.join(host: target.host, port: target.port, typing: typing, timeout: lifetime,
                                                       retry: .standard, onRetry: { failure, delay, left in
                    say("pairing attempt failed (\(failure)); trying again in \(inSeconds(delay)) s (\(left) attempt\(left == 1 ? "" : "s") left)")
                }) { prompt in
                    // The window's word on who types is unauthenticated: it changes only the words,
                    // never whether the person here compares (or types) the code.
                    if typing { return await typeCode(prompt.code) }
                    if prompt.windowTypes {
                        say("code \(prompt.code) (type it on the other device)")
                        return await TerminalAnswers.shared.confirm("Does the other device say 'code \(prompt.code) matches'? [y/N]")
                    }
                    say("code \(prompt.code)")
                    return await TerminalAnswers.shared.confirm("Does the other device show \(prompt.code)? [y/N]")
                } save: { identity in
                    if let movedAside = try identity.write(to: directory, replacingExisting: replacing) {
                        say("moved the identity that was in \(shown(directory.path)) to \(shown(movedAside.path))")
                    }
                }
                say("joined group '\(shown(identity.groupName))' as '\(shown(identity.name))'; identity written to \(shown(directory.path))")
                await startAgent(deviceDirectory: directory)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }
}

/// Asks the person to type the code the other device shows and compares it with `code` (this
/// side's own code of the session); says whether it matched, so the other side's person,
/// who compares, sees "code 123 456 matches" here.
@MainActor
func typeCode(_ code: PairingCode) async -> Bool {
    var typed = await TerminalAnswers.shared.typed("Type the code the other device shows:")
    // A slip (not six digits) is asked again, a few times: only a well-formed code decides.
    for _ in 0..<5 where !typed.isEmpty && !PairingCode.isWellFormed(typed) {
        typed = await TerminalAnswers.shared.typed("'\(shown(typed))' is not a six-digit code; type the code the other device shows:")
    }
    guard code.matches(typed: typed) else {
        say("that is not the code of this session: someone may be in the middle")
        return false
    }
    say("code \(code) matches")
    return true
}

/// `duration` in seconds, to the tenth, for people.
private func inSeconds(_ duration: Duration) -> String {
    String(format: "%.1f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}

/// Prints `text` and flushes standard output at once: the other side's person, or a script,
/// waits on each line.
func say(_ text: String, terminator: String = "\n") {
    print(text, terminator: terminator)
    fflush(nil)
}
