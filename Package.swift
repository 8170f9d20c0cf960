// swift-tools-version: 6.0
import Foundation
import PackageDescription

let package = Package(
    name: "Baton",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Baton", targets: ["Baton"]),
        .library(name: "BatonContinuity", targets: ["BatonContinuity"]),
        .library(name: "BatonAgent", targets: ["BatonAgent"]),
        .executable(name: "baton", targets: ["BatonTool"]),
        .executable(name: "batond", targets: ["BatonDaemon"]),
        .executable(name: "baton-screens", targets: ["Screens"]),
        .executable(name: "baton-hello", targets: ["Hello"]),
        .executable(name: "baton-shapes", targets: ["Shapes"]),
        .executable(name: "baton-notes", targets: ["Notes"]),
        .executable(name: "baton-mapviewer", targets: ["MapViewer"]),
        .executable(name: "baton-mail", targets: ["Mail"]),
        .executable(name: "baton-reader", targets: ["Reader"]),
    ],
    dependencies: [
        // Logged (non-fatal) refusals of bad input go through swift-log, so apps choose the backend.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // Device certificates and the group authority are made in Swift, not by shelling out.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.1.0"),
        // The `baton` command.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        // `make docs`: the DocC catalogs (Sources/*/*.docc) are built with
        // `swift package generate-documentation`; a plugin only, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // GLib / GIO, found by pkg-config, plus the two libdispatch hooks that are in no header.
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // Avahi's client library and its GLib poll adapter: DNS-SD through the system's avahi-daemon.
        // (No pkgConfig: the headers and libraries are in the default paths, and Avahi's .pc
        // files only add -D_REENTRANT, which SwiftPM warns about.)
        .systemLibrary(name: "CAvahi", providers: [.apt(["libavahi-client-dev", "libavahi-glib-dev"])]),
        // libsoup 3: HTTPS on GIO and the GLib loop, for the associated-domain files of web-to-app handoff.
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0", providers: [.apt(["libsoup-3.0-dev"])]),
        // libmosquitto: the MQTT client of signalling through the user's broker, driven by the GLib loop.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // libnice: ICE (host, STUN and TURN candidates) on the GLib loop, for links beyond one network.
        .systemLibrary(name: "CNice", pkgConfig: "nice", providers: [.apt(["libnice-dev"])]),
        // C helpers for GIO: the socket under a TLS connection, and an app launch context (GObject subclassing).
        .target(name: "CBatonStreams", dependencies: ["CGLib"]),
        // Layer 1: the GLib main loop as the app's run loop, with Swift concurrency on it.
        .target(
            name: "BatonLoop",
            dependencies: ["CGLib", .product(name: "Logging", package: "swift-log")]
        ),
        // Layers 2 and 3: responders, windows, application; user activities.
        .target(
            name: "Baton",
            dependencies: ["BatonLoop", "CGLib", .product(name: "Logging", package: "swift-log")]
        ),
        // Layer 4: device identity and trust, transport, discovery, continuation between devices.
        .target(
            name: "BatonContinuity",
            dependencies: [
                "Baton", "CGLib", "CBatonStreams", "CAvahi", "CSoup", "CMosquitto", "CNice",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Layer 5: the per-user agent that owns the device for all of the user's Baton apps, and
        // the client an app joins it with (D-Bus peer-to-peer on a Unix socket).
        .target(
            name: "BatonAgent",
            dependencies: ["BatonContinuity", "Baton", "BatonLoop", "CGLib", "CBatonStreams", .product(name: "Logging", package: "swift-log")]
        ),
        // `batond`, the agent's process.
        .executableTarget(name: "BatonDaemon", dependencies: ["BatonAgent", "BatonContinuity", "BatonLoop", "CGLib"]),
        // Layer 5: the `baton` command.
        .executableTarget(
            name: "BatonTool",
            dependencies: ["BatonContinuity", "BatonAgent", "CGLib", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "Screens", dependencies: ["Baton"], path: "Examples/Screens"),
        .executableTarget(name: "Hello", dependencies: ["Baton"], path: "Examples/Hello"),

        .executableTarget(name: "Notes", dependencies: ["Baton"], path: "Examples/Notes", resources: [.copy("Manifest")]),
        // What the example apps share to be devices of a group.
        .target(name: "ExampleSupport", dependencies: ["Baton", "BatonContinuity", "BatonAgent", "CGLib"], path: "Examples/ExampleSupport"),
        .executableTarget(name: "Shapes", dependencies: ["Baton", "BatonContinuity", "ExampleSupport"], path: "Examples/Shapes",
                          resources: [.copy("Manifest")]),
        .executableTarget(name: "MapViewer", dependencies: ["Baton", "BatonContinuity", "ExampleSupport"], path: "Examples/MapViewer",
                          resources: [.copy("Manifest")]),
        .executableTarget(name: "Mail", dependencies: ["Baton", "BatonContinuity", "ExampleSupport", .product(name: "Crypto", package: "swift-crypto")],
                          path: "Examples/Mail", resources: [.copy("Manifest")]),
        .executableTarget(name: "Reader", dependencies: ["Baton", "BatonContinuity", "ExampleSupport"], path: "Examples/Reader",
                          resources: [.copy("Manifest")]),
        .executableTarget(name: "BatonBench", dependencies: ["Baton", "BatonContinuity", "BatonAgent", "CGLib", "HostSupport", "CBenchFloor"],
                          path: "Benchmarks/BatonBench"),
        // `make bench`'s bare relay hop in C, the floor beside the agents' warm figure.
        .target(name: "CBenchFloor", path: "Benchmarks/CBenchFloor"),
        // A real process for what must not run inside the test runner: async main, traps, the idle CPU.
        .executableTarget(name: "LoopProbe", dependencies: ["Baton"], path: "Tests/Probes/LoopProbe"),
        .executableTarget(name: "AsyncMainProbe", dependencies: ["Baton"], path: "Tests/Probes/AsyncMainProbe"),
        .executableTarget(name: "LaunchProbe", dependencies: ["Baton"], path: "Tests/Probes/LaunchProbe"),
        .executableTarget(name: "DeviceProbe", dependencies: ["BatonAgent", "BatonContinuity", "CGLib"], path: "Tests/Probes/DeviceProbe"),
        // What the tests and the bench share, XCTest-free: child processes, namespace hosts
        // (`TestHost`), the NAT topology, coturn and mosquitto started with deadlines.
        .target(name: "HostSupport", dependencies: ["BatonLoop", "CGLib"], path: "Tests/HostSupport"),
        // The tests' support: HostSupport (re-exported) and the XCTest-only parts.
        .target(name: "BatonTestSupport", dependencies: ["BatonLoop", "CGLib", "HostSupport"], path: "Tests/BatonTestSupport"),
        // The typed diagnostics of device processes (`DiagnosticEvent`), for the tests above layer 3.
        .target(name: "DeviceTestSupport", dependencies: ["BatonTestSupport", "BatonContinuity"], path: "Tests/DeviceTestSupport"),
        .testTarget(name: "BatonLoopTests", dependencies: ["BatonLoop", "CGLib", "BatonTestSupport"]),
        .testTarget(name: "BatonTests", dependencies: ["Baton", "BatonTestSupport"]),
        .testTarget(name: "BatonContinuityTests", dependencies: ["BatonContinuity", "Baton", "CGLib", "BatonTestSupport", "DeviceTestSupport"]),
        .testTarget(name: "PortingTests", dependencies: ["Baton", "BatonLoop", "BatonTestSupport"], path: "Tests/PortingTests"),
        .testTarget(name: "BatonAgentTests", dependencies: ["BatonAgent", "BatonContinuity", "Baton", "CGLib", "BatonTestSupport", "DeviceTestSupport"]),
    ]
)

// Fuzz targets (Fuzz/, run by scripts/fuzz.sh): they need libFuzzer's runtime, linked by
// `-sanitize=fuzzer`, so they are only in the package when BATON_FUZZ=1, and are built into their
// own scratch path (.build-fuzz) with `-sanitize=fuzzer,address`; an ordinary
// `swift build --build-tests` never sees them.
if Context.environment["BATON_FUZZ"] == "1" {
    let fuzzTargets: [(String, [Target.Dependency])] = [
        ("Variant", ["BatonLoop", "CGLib"]),
        ("ActivityPayload", ["Baton", "BatonLoop"]),
        ("ActivityFile", ["Baton", "BatonLoop"]),
        ("ActivityMetadata", ["BatonContinuity", "Baton", "BatonLoop", "CGLib"]),
        ("RevocationList", ["BatonContinuity", "BatonLoop"]),
        ("Roster", ["BatonContinuity", "BatonLoop"]),
        ("Certificate", ["BatonContinuity"]),
        ("ServiceRecord", ["BatonContinuity"]),
        ("AssociatedDomains", ["BatonContinuity"]),
        ("PairingMessage", ["BatonContinuity", "BatonLoop", .product(name: "Crypto", package: "swift-crypto")]),
        ("DBusMessage", ["BatonContinuity", "BatonLoop", "CGLib", .product(name: "Logging", package: "swift-log")]),
    ]
    // libFuzzer's driver, called from each target's main (see Fuzz/Support/FuzzDriver.swift).
    package.targets.append(.target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(
        name: "FuzzSupport",
        dependencies: ["CLibFuzzer", "BatonContinuity", "Baton", "BatonLoop", .product(name: "Logging", package: "swift-log"),
                       .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto")],
        path: "Fuzz/Support"))
    for (name, dependencies) in fuzzTargets {
        package.targets.append(.executableTarget(
            name: "Fuzz\(name)",
            dependencies: dependencies + ["FuzzSupport"],
            path: "Fuzz/\(name)"))
    }
}

// BatonGtk: Baton's windows, first responder and actions on GTK 4 (an optional module; nothing
// else imports it). It and what needs it are in the package only where GTK 4's development
// files are installed (scripts/install-deps.sh installs libgtk-4-dev); without them the rest
// builds unchanged, BatonGtkTests skip with the reason, and BatonGtk is an empty module whose
// warning says what to install (Sources/BatonGtkUnavailable). `BATON_WITHOUT_GTK=1` leaves it out
// even where GTK is installed (a GTK-free build, and the check that one still works).
let hasGtk4 = FileManager.default.fileExists(atPath: "/usr/include/gtk-4.0/gtk/gtk.h")
    && ProcessInfo.processInfo.environment["BATON_WITHOUT_GTK"] != "1"
if hasGtk4 {
    package.products.append(.library(name: "BatonGtk", targets: ["BatonGtk"]))
    package.targets.append(contentsOf: [
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(name: "BatonGtk", dependencies: ["Baton", "BatonLoop", "CGLib", "CGtk"]),
        // The GTK scenarios run in a child process under a virtual display: gtk_init is once per
        // process, and the test runner must not hold a display connection.
        .executableTarget(name: "GtkProbe", dependencies: ["BatonGtk", "Baton", "BatonLoop", "CGtk"], path: "Tests/Probes/GtkProbe"),
        // A BatonGtk app under GtkApplicationMain, for GtkApplicationTests (a process per launch).
        .executableTarget(name: "GtkApplicationProbe", dependencies: ["BatonGtk"], path: "Tests/Probes/GtkApplicationProbe"),
        // GtkNotes, the desktop example: a note editor whose notes hand off between devices.
        .executableTarget(name: "GtkNotes", dependencies: ["BatonGtk", "Baton", "BatonLoop", "ExampleSupport", "CGtk", "CGLib"],
                          path: "Examples/GtkNotes", resources: [.copy("Manifest")]),
    ])
    package.products.append(.executable(name: "baton-gtknotes", targets: ["GtkNotes"]))
    // `make bench`'s GTK figure (Benchmarks/BatonBench/GtkBenchmarks.swift).
    package.targets.first { $0.name == "BatonBench" }?.dependencies.append("BatonGtk")
} else {
    // An app that depends on BatonGtk where GTK is missing gets an empty module whose one
    // warning says what to install, rather than SwiftPM's "product not found".
    package.products.append(.library(name: "BatonGtk", targets: ["BatonGtk"]))
    package.targets.append(.target(name: "BatonGtk", path: "Sources/BatonGtkUnavailable"))
}
package.targets.append(.testTarget(
    name: "BatonGtkTests",
    dependencies: ["BatonTestSupport", "DeviceTestSupport"] + (hasGtk4 ? ["BatonGtk", "BatonContinuity", "CGtk"] : [])
))
