/// A typed action message: what a selector is to AppKit's `sendAction(_:to:from:)`.
///
/// `Handler` is the protocol a responder adopts to handle the action; the action says which
/// of its methods to call. A responder handles the action when it conforms, so dispatch is
/// checked by the compiler and needs no strings:
///
///     @MainActor protocol Copying { func copy(_ sender: Any?) }
///     extension Action where Handler == any Copying {
///         static let copy = Action("copy") { $0.copy($1) }
///     }
///     Application.shared.sendAction(.copy, to: nil, from: button)
public struct Action<Handler>: Sendable {
    /// The action's name, for messages and logs.
    public let name: String
    let perform: @MainActor @Sendable (Handler, Any?) -> Void

    /// An action called `name` that calls `perform` with the handler and the sender.
    public init(_ name: String, perform: @escaping @MainActor @Sendable (Handler, Any?) -> Void) {
        self.name = name
        self.perform = perform
    }
}
