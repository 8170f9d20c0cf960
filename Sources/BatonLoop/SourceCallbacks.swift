import CGLib

/// The closure behind a `LoopSource`, handed to GLib as `user_data`.
final class SourceBox: CallbackBox, @unchecked Sendable {
    let body: () -> Repetition
    init(_ body: @escaping () -> Repetition) { self.body = body }
}

/// GLib's `GSourceFunc` for idle and timeout sources.
let sourceTrampoline: GSourceFunc = { userData in
    SourceBox.borrow(userData!).body() == .again ? baton_source_continue() : baton_source_remove()
}

/// GLib's `GUnixFDSourceFunc` for fd sources.
let unixFDTrampoline: GUnixFDSourceFunc = { _, _, userData in
    SourceBox.borrow(userData!).body() == .again ? baton_source_continue() : baton_source_remove()
}
