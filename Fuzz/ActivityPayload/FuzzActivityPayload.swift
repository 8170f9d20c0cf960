@testable import Baton
import BatonLoop
import Foundation
import FuzzSupport

// The activity payload a peer sends for FetchPayload: `UserActivity(payload:)` (the `(uv)`
// envelope, the version 1 body, the properties and the userInfo coding), which reads GVariant's
// normal form directly, compared on every input with GLib's reader (`GLibPayloadReference`):
// both accept it and read equal activities, or both refuse it with the same kind of error.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked { try MainActor.assumeIsolated { try ActivitySeeds.payloads() } }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityPayload(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    MainActor.assumeIsolated {
        if let disagreement = GLibPayloadReference.disagreement(payload: input) {
            FuzzInput.require(false, "the direct reader and GLib's disagree: \(disagreement)")
        }
        guard let activity = try? UserActivity(payload: input) else { return }
        // An activity that was read is one this Baton can send on, and read back.
        let again: Data
        do { again = try activity.encodedPayload() } catch let error as CocoaError where error.code == .userActivityHandoffUserInfoTooLarge {
            return
        } catch {
            FuzzInput.require(false, "a payload read does not encode again: \(error)"); return
        }
        do {
            let copy = try UserActivity(payload: again)
            FuzzInput.require(GLibPayloadReference.same(copy, activity), "the activity changed on the way back")
            FuzzInput.require(GLibPayloadReference.disagreement(payload: again) == nil, "GLib reads what was written otherwise")
        } catch {
            FuzzInput.require(false, "a payload written does not read back: \(error)")
        }
    }
    return 0
}

FuzzDriver.run(fuzzActivityPayload)
