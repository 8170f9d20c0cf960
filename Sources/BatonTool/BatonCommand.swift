import ArgumentParser
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
            """,
        subcommands: [GroupCommand.self, DeviceCommand.self, IdentityCommand.self, NearbyCommand.self, ContinueCommand.self])
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
            print("created group '\(authority.name)' in \(options.directory.groupDirectory.path)")
            print("authority fingerprint \(authority.certificate.fingerprint)")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the group administered here.")
        @OptionGroup var options: ConfigOption

        func run() throws {
            let authority = try GroupAuthority.load(from: options.directory)
            let list = try authority.revocationList()
            print("group '\(authority.name)'")
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
            discussion: "Writes certificate.pem, key.pem (mode 0600), group.pem and revocations to copy to the device.")
        @Argument(help: "The device's name, shown to the user's other devices.") var name: String
        @Option(name: .long, help: "Where to write the identity (default: ./NAME.baton-identity).") var out: String?
        @Flag(name: .long, help: "Install it as this machine's own identity instead.") var install = false
        @OptionGroup var options: ConfigOption

        func run() throws {
            let identity = try GroupAuthority.load(from: options.directory).issueDevice(named: name)
            let target = install ? options.directory.deviceDirectory : URL(fileURLWithPath: out ?? "\(name).baton-identity")
            try identity.write(to: target)
            print("issued '\(name)', serial \(identity.certificate.serialHex)")
            print(install ? "installed in \(target.path)"
                          : "wrote \(target.path): copy its files to that device's $XDG_CONFIG_HOME/baton/device/")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices issued.")
        @OptionGroup var options: ConfigOption

        func run() throws {
            let roster = try GroupAuthority.load(from: options.directory).loadRoster()
            if roster.devices.isEmpty { print("no devices yet; add one with `baton device add NAME`") }
            for device in roster.devices {
                print("\(device.name)\t\(device.serial)\t\(device.revoked ? "revoked" : "active")")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device.",
            discussion: "Takes effect on each device's next connection once the new revocation list reaches it.")
        @Argument(help: "The device to revoke.") var name: String
        @OptionGroup var options: ConfigOption

        func run() throws {
            let data = try GroupAuthority.load(from: options.directory).revokeDevice(named: name)
            let ownList = options.directory.deviceDirectory.appendingPathComponent("revocations")
            if FileManager.default.fileExists(atPath: ownList.path) { try data.write(to: ownList, options: .atomic) }
            print("revoked '\(name)'; copy \(options.directory.groupDirectory.appendingPathComponent("revocations").path) to the other devices' baton/device/")
        }
    }
}

struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity", abstract: "Show this device's identity.")
    @OptionGroup var options: ConfigOption

    func run() throws {
        let identity = try DeviceIdentity.load(from: options.directory.deviceDirectory)
        print("device '\(identity.name)'")
        print("serial \(identity.certificate.serialHex)")
        print("fingerprint \(identity.certificate.fingerprint)")
        print("group '\(identity.groupCertificate.commonName ?? "?")', authority \(identity.groupCertificate.fingerprint)")
        print("revocation list \(identity.revocations.sequence): \(identity.revocations.revokedSerials.count) revoked")
    }
}
