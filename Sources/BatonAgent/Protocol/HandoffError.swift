import Foundation

extension CocoaError {
    /// A Handoff failure with `message`.
    static func handoff(_ code: CocoaError.Code, _ message: String) -> CocoaError {
        CocoaError(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
