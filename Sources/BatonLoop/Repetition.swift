/// What a repeating loop callback wants next: GLib's `G_SOURCE_CONTINUE` / `G_SOURCE_REMOVE`.
public enum Repetition: Sendable {
    /// Keep the source; call again when it is next ready.
    case again
    /// Remove the source; its closure is released.
    case stop
}
