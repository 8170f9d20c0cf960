@testable import Baton
import BatonLoop
import Foundation
import FuzzSupport

// Handoff files (`baton continue FILE`, `Application.continueUserActivity(fromFileAt:)`):
// `ActivityFile.read(from:)` on any file, then the payload it holds, as the application reads it.

/// The file each input is written to (in /dev/shm when there is one: no disk I/O per run).
private enum Scratch {
    nonisolated(unsafe) static var file = URL(fileURLWithPath: "/")
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked { try MainActor.assumeIsolated { try seeds() } }
    let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
    let directory = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
    Scratch.file = directory.appendingPathComponent("baton-fuzz-activity-file-\(getpid()).handoff")
    atexit { try? FileManager.default.removeItem(at: Scratch.file) }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityFile(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    do { try FuzzInput.data(bytes, count).write(to: Scratch.file) } catch { fatalError("fuzz: cannot write \(Scratch.file.path): \(error)") }
    guard let offer = try? ActivityFile.read(from: Scratch.file) else { return 0 }
    FuzzInput.require(offer.title != "", "an empty title must read as none")
    MainActor.assumeIsolated { _ = try? UserActivity(payload: offer.payload) }
    return 0
}

@MainActor
private func seeds() throws -> [String: Data] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("baton-fuzz-seeds-\(getpid())", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var seeds: [String: Data] = [:]
    func written(_ activity: UserActivity) throws -> Data {
        let url = directory.appendingPathComponent("\(seeds.count).handoff")
        try ActivityFile.write(activity, to: url)
        return try Data(contentsOf: url)
    }
    let note = UserActivity(activityType: "com.example.note")
    note.title = "Shopping list"
    try note.setUserInfo(["text": "milk, eggs", "cursor": 4])
    seeds["note"] = try written(note)
    seeds["untitled"] = try written(UserActivity(activityType: "com.example.untitled"))
    let page = UserActivity(activityType: UserActivity.browsingWebType)
    try page.setWebpageURL(URL(string: "https://example.com/article"))
    seeds["browsing-web"] = try written(page)
    // Almost right: another version, a payload that is not one, the wrong field types.
    seeds["version-2"] = try Variant.tuple([.uint32(2), .string("t"), .string(""), .bytes(Data())]).serialized()
    seeds["payload-garbage"] = try Variant.tuple([.uint32(1), .string("t"), .string("x"), .bytes(Data([1, 2, 3]))]).serialized()
    seeds["wrong-fields"] = try Variant.tuple([.uint32(1), .uint32(1), .string(""), .bytes(Data())]).serialized()
    return seeds
}

FuzzDriver.run(fuzzActivityFile)
