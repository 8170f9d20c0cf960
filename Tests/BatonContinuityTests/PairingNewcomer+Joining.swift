@testable import BatonContinuity
import Foundation

extension PairingNewcomer {
    /// Joins the window at 127.0.0.1:`port` in a task of its own (within 15 s, the code not
    /// typed), answering its prompt with `confirm` (yes unless told) and writing the identity it
    /// is granted to `folder`; `done` gets the outcome.
    @MainActor
    func startJoining(port: UInt16, folder: URL, confirm: @escaping @MainActor (Prompt) async -> Bool = { _ in true },
                      done: @escaping @MainActor (Result<DeviceIdentity, PairingError>) -> Void) {
        Task { @MainActor in
            do throws(PairingError) {
                done(.success(try await join(host: "127.0.0.1", port: port, typing: false, timeout: .seconds(15), confirm: confirm) {
                    try $0.write(to: folder)
                }))
            } catch {
                done(.failure(error))
            }
        }
    }
}
