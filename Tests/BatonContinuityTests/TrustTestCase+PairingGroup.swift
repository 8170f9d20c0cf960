@testable import BatonContinuity
import Foundation

extension TrustTestCase {
    /// A group with this machine's own device A, administered in `config("admin")`: the
    /// group a pairing window opens for.
    func pairingGroup() throws -> GroupAuthority {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        _ = try authority.issueDevice(named: "A", writingTo: config("admin").deviceDirectory)
        return authority
    }
}
