import CGtk

/// GTK's widget pointers in the types its functions take: GTK 4 declares many widget types
/// opaque (`GtkLabel`, `GtkBox`, …), which Swift sees as `OpaquePointer`, and the rest as
/// structs. GtkNotes keeps every widget as a `GtkWidget` pointer and casts at the call.
typealias Widget = UnsafeMutablePointer<GtkWidget>

extension UnsafeMutablePointer where Pointee == GtkWidget {
    /// The widget as an opaque type's pointer (`GtkLabel *`, `GtkBox *`, `GtkNative *`…).
    var opaque: OpaquePointer { OpaquePointer(self) }
    /// The widget as a pointer to `type` (`GtkWindow`, `GtkTextView`…).
    func cast<T>(_ type: T.Type) -> UnsafeMutablePointer<T> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: type) }
    /// The widget as an untyped `GObject` pointer.
    var object: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}
