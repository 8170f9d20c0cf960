@testable import BatonContinuity

extension TrustTestCase {
    /// Two devices of a new group (administered in `config("admin")`), "laptop" and "phone",
    /// ordered by the ICE role each takes towards the other (`IceSession.Role.for`).
    func devicesInIceRoles() throws -> (controlling: DeviceIdentity, controlled: DeviceIdentity) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        return IceSession.Role.for(local: laptop.identifier, remote: phone.identifier) == .controlling ? (laptop, phone) : (phone, laptop)
    }
}
