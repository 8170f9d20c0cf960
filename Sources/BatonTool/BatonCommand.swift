import ArgumentParser
import BatonAgent
import BatonContinuity
import Foundation

/// `baton`: provisions the devices of one user's group, headless.
@main
struct BatonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baton",
        abstract: "Provision and inspect Baton device groups.",
        discussion: """
            A device group is the set of devices of one user that may hand activities to each other.
            `baton group create` makes the group's authority on the machine that administers it;
            `baton device add NAME` issues a device's identity, to copy to that device's
            $XDG_CONFIG_HOME/baton/device (or --install it on this machine).
            Every command changes the group's and the device's files all together or not at
            all: one that fails leaves them as they were. No command overwrites a private key.
            """,
        version: BatonVersion.current,
        subcommands: [GroupCommand.self, DeviceCommand.self, IdentityCommand.self, PairCommand.self, NearbyCommand.self, ContinueCommand.self,
                      AppCommand.self, StatusCommand.self, AgentCommand.self, InspectCommand.self, WhyCommand.self, RelayCommand.self])
}

struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "The configuration directory (default: $XDG_CONFIG_HOME/baton).")
    var config: String?

    var directory: ConfigDirectory {
        config.map { ConfigDirectory(url: URL(fileURLWithPath: $0)) } ?? .standard()
    }
}

struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Create or show the device group.",
        subcommands: [Create.self, Show.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a device group (its certificate authority).")
        @Argument(help: "A name for the group, such as the user's name.") var name: String
        @OptionGroup var options: ConfigOption

        func run() throws {
            let authority = try GroupAuthority.create(name: name, in: options.directory)
            print("created group '\(shown(authority.name))' in \(shown(options.directory.groupDirectory.path))")
            print("authority fingerprint \(authority.certificate.fingerprint)")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the group administered here.")
        @OptionGroup var options: ConfigOption

        func run() throws {
            let authority = try GroupAuthority.load(from: options.directory)
            let list = try authority.revocationList()
            print("group '\(shown(authority.name))'")
            print("authority fingerprint \(authority.certificate.fingerprint)")
            print("revocation list \(list.sequence): \(list.revokedSerials.count) revoked")
        }
    }
}

struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Add, list and revoke the group's devices.",
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a device's identity.",
            discussion: """
                Writes certificate.pem, key.pem (mode 0600), group.pem, revocations and discovery.key to copy to \
                the device. A folder that already holds an identity is refused unless --force; even then its \
                files are moved to a replaced-TIMESTAMP folder inside it, never deleted. The device is recorded \
                in the roster only if its files are written. Its certificate names nothing but a random identifier: \
                its name travels in the group's new signed list (revocations), which this machine's own device \
                takes too and the other devices get from it over their links.
                """)
        @Argument(help: "The device's name, shown to the user's other devices: 1–64 printable characters, no '/'.") var name: String
        @Option(name: .long, help: "Where to write the identity (default: ./NAME.baton-identity).") var out: String?
        @Flag(name: .long, help: "Install it as this machine's own identity instead.") var install = false
        @Flag(name: .long, help: "Replace an identity already there, moving its files aside (never deleting them).") var force = false
        @OptionGroup var options: ConfigOption

        func run() throws {
            let target = install ? options.directory.deviceDirectory : URL(fileURLWithPath: out ?? "\(name).baton-identity")
            let (identity, movedAside) = try GroupAuthority.load(from: options.directory)
                .issueDevice(named: name, writingTo: target, replacingExisting: force, updating: [options.directory.deviceDirectory])
            if let movedAside { print("moved the identity that was in \(shown(target.path)) to \(shown(movedAside.path))") }
            print("issued '\(shown(name))', identifier \(identity.identifier), serial \(identity.certificate.serialHex)")
            print(install ? "installed in \(shown(target.path))"
                          : "wrote \(shown(target.path)): copy its files to that device's $XDG_CONFIG_HOME/baton/device/")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices issued.")
        @OptionGroup var options: ConfigOption

        func run() throws {
            let roster = try GroupAuthority.load(from: options.directory).loadRoster()
            if roster.devices.isEmpty { print("no devices yet; add one with `baton device add NAME`") }
            for device in roster.devices {
                print("\(shown(device.name))\t\(device.serial)\t\(device.revoked ? "revoked" : "active")")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device.",
            discussion: """
                Writes a new signed revocation list and a new discovery key (the revoked device knows the old \
                one) to the group's folder, and to this machine's own device. The other devices need both \
                files: a device linked to one that holds them gets them over its link (and passes them on); \
                copy them into the baton/device/ folder of any other device (discovery.key with mode 0600). \
                Each device acts on the list the moment it arrives: it cuts the revoked device's links. \
                The list is also written as an X.509 CRL (revocations.crl) for the group's broker; with relay \
                settings, the list carries a new TURN shared secret, and the command prints what to copy to \
                the broker and the TURN server so they refuse the revoked device too. If anything cannot be \
                written, nothing is changed and the file is named.
                """)
        @Argument(help: "The device to revoke.") var name: String
        @OptionGroup var options: ConfigOption

        func run() throws {
            let own = options.directory.deviceDirectory, group = options.directory.groupDirectory
            let authority = try GroupAuthority.load(from: options.directory)
            let before = try authority.relaySettings()
            let list = try authority.revokeDevice(named: name, updating: [own])
            let files = [group.appendingPathComponent("revocations"), group.appendingPathComponent("discovery.key")]
            print("revoked '\(shown(name))'; the other devices need these two files, the new revocation list and discovery key:")
            for file in files { print("  \(shown(file.path))") }
            if (try? Data(contentsOf: own.appendingPathComponent("revocations"))) == list {
                print("this machine's device (\(shown(own.path))) holds both now: while it runs, each device linked to it gets both over its link and passes them on")
            } else {
                print("a device linked to one that holds both gets them over its link and passes them on")
            }
            print("copy both into the baton/device/ folder of each device that is not linked now (discovery.key with mode 0600), e.g.:")
            print("  scp -p \(files.map { shown($0.path) }.joined(separator: " ")) DEVICE:.config/baton/device/")
            if let settings = try authority.relaySettings() {
                RevocationAtServers.printSteps(for: settings, crl: group.appendingPathComponent(GroupAuthority.crlFileName),
                                               rotated: settings.turnSecret != before?.turnSecret)
            }
        }
    }
}

struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity", abstract: "Show this device's identity.")
    @OptionGroup var options: ConfigOption

    func run() throws {
        let identity = try DeviceIdentity.load(from: options.directory.deviceDirectory)
        print("device '\(shown(identity.name))'")
        print("identifier \(shown(identity.identifier))")
        print("serial \(identity.certificate.serialHex)")
        print("fingerprint \(identity.certificate.fingerprint)")
        print("group '\(shown(identity.groupName))', authority \(identity.groupCertificate.fingerprint)")
        print("revocation list \(identity.revocations.sequence): \(identity.revocations.revokedSerials.count) revoked")
    }
}

/// What the command prints of any name or path: control and bidirectional characters escaped.
func shown(_ text: String) -> String { PrintableText.escaped(text) }
