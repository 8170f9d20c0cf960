// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Baton",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Baton", targets: ["Baton"]),
        .executable(name: "baton-screens", targets: ["Screens"]),
        .executable(name: "baton-hello", targets: ["Hello"]),
        .executable(name: "baton-shapes", targets: ["Shapes"]),
        .executable(name: "baton-notes", targets: ["Notes"]),
    ],
    dependencies: [
        // Logged (non-fatal) refusals of bad input go through swift-log, so apps choose the backend.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        // GLib / GIO, found by pkg-config, plus the two libdispatch hooks that are in no header.
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
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
        .executableTarget(name: "Screens", dependencies: ["Baton"], path: "Examples/Screens"),
        .executableTarget(name: "Hello", dependencies: ["Baton"], path: "Examples/Hello"),
        .executableTarget(name: "Shapes", dependencies: ["Baton"], path: "Examples/Shapes", resources: [.copy("Manifest")]),
        .executableTarget(name: "Notes", dependencies: ["Baton"], path: "Examples/Notes", resources: [.copy("Manifest")]),
        .executableTarget(name: "BatonBench", dependencies: ["Baton", "CGLib"], path: "Benchmarks/BatonBench"),
        // A real process for what must not run inside the test runner: async main, traps, the idle CPU.
        .executableTarget(name: "LoopProbe", dependencies: ["Baton"], path: "Tests/Probes/LoopProbe"),
        .executableTarget(name: "AsyncMainProbe", dependencies: ["Baton"], path: "Tests/Probes/AsyncMainProbe"),
        .target(name: "BatonTestSupport", path: "Tests/BatonTestSupport"),
        .testTarget(name: "BatonLoopTests", dependencies: ["BatonLoop", "CGLib", "BatonTestSupport"]),
        .testTarget(name: "BatonTests", dependencies: ["Baton", "BatonTestSupport"]),
    ]
)
