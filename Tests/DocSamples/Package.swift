// swift-tools-version:6.0
// The code samples of Baton's README and DocC articles, built as a user's package builds them:
// a separate package that depends on Baton by path and sees only its public API. Each sample is
// a file the docs show whole (`<!-- snippet: PATH -->`, checked by ReadmeSnippetTests); `make
// test` builds this package (scripts/doc-samples.sh). The MyApp target (the 20-line app) is declared with the line
// "Getting started" shows.
import Foundation
import PackageDescription

let package = Package(
    name: "DocSamples",
    dependencies: [.package(name: "Baton", path: "../..")],
    targets: [
        .executableTarget(name: "MyApp", dependencies: [.product(name: "Baton", package: "Baton")]),
        .target(name: "HandoffInsideAnApp", dependencies: [.product(name: "Baton", package: "Baton")]),
        .executableTarget(name: "JoinTheAgent", dependencies: [.product(name: "BatonAgent", package: "Baton")]),
        .executableTarget(name: "EmbeddedNode", dependencies: [.product(name: "BatonContinuity", package: "Baton")]),
        .target(name: "ContinuationStreams", dependencies: [.product(name: "Baton", package: "Baton")]),
        .executableTarget(name: "EmbeddedLoop", dependencies: [.product(name: "Baton", package: "Baton")]),
    ]
)

// The BatonGtk sample, where Baton has BatonGtk (GTK 4's development files installed).
if FileManager.default.fileExists(atPath: "/usr/include/gtk-4.0/gtk/gtk.h"), ProcessInfo.processInfo.environment["BATON_WITHOUT_GTK"] == nil {
    package.targets.append(.executableTarget(name: "GtkWindows", dependencies: [.product(name: "BatonGtk", package: "Baton")]))
}
