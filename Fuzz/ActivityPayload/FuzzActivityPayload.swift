@testable import Baton
import BatonLoop
import Foundation
import FuzzSupport

// The activity payload a peer sends for FetchPayload: `UserActivity(payload:)` (the `(uv)`
// envelope, the version 1 body, the properties and the userInfo coding).

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
            FuzzInput.require(copy.activityType == activity.activityType, "the activity type changed")
        } catch {
            FuzzInput.require(false, "a payload written does not read back: \(error)")
        }
    }
    return 0
}

FuzzDriver.run(fuzzActivityPayload)
