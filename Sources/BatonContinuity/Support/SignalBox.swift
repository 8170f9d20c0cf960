import BatonLoop

/// A main-actor closure behind a GObject signal handler (such as a file monitor's `changed`),
/// released with the handler (`CallbackBox.closureNotify`).
final class SignalBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (Variant?) -> Void
    init(_ body: @escaping @MainActor (Variant?) -> Void) { self.body = body }
}
