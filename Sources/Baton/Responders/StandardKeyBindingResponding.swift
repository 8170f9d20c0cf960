/// The editing commands of AppKit's standard key bindings (`NSStandardKeyBindingResponding`):
/// one handler protocol and one typed action per command, named as AppKit's methods.
///
/// `interpretKeyEvents(_:)` turns bound keys into these commands (`StandardKeyBindings`) and
/// `doCommand(by:)` performs a command on the first responder up the chain whose class adopts
/// its protocol, as AppKit performs the selector on the first responder that implements it:
///
///     final class Canvas: View, StandardKeyBindingResponding.MoveLeft {
///         func moveLeft(_ sender: Any?) { … }
///     }
public enum StandardKeyBindingResponding {
    /// Handles `moveUp(_:)`.
    @MainActor public protocol MoveUp { func moveUp(_ sender: Any?) }
    /// Handles `moveDown(_:)`.
    @MainActor public protocol MoveDown { func moveDown(_ sender: Any?) }
    /// Handles `moveLeft(_:)`.
    @MainActor public protocol MoveLeft { func moveLeft(_ sender: Any?) }
    /// Handles `moveRight(_:)`.
    @MainActor public protocol MoveRight { func moveRight(_ sender: Any?) }
    /// Handles `moveUpAndModifySelection(_:)`.
    @MainActor public protocol MoveUpAndModifySelection { func moveUpAndModifySelection(_ sender: Any?) }
    /// Handles `moveDownAndModifySelection(_:)`.
    @MainActor public protocol MoveDownAndModifySelection { func moveDownAndModifySelection(_ sender: Any?) }
    /// Handles `moveLeftAndModifySelection(_:)`.
    @MainActor public protocol MoveLeftAndModifySelection { func moveLeftAndModifySelection(_ sender: Any?) }
    /// Handles `moveRightAndModifySelection(_:)`.
    @MainActor public protocol MoveRightAndModifySelection { func moveRightAndModifySelection(_ sender: Any?) }
    /// Handles `moveWordLeft(_:)`.
    @MainActor public protocol MoveWordLeft { func moveWordLeft(_ sender: Any?) }
    /// Handles `moveWordRight(_:)`.
    @MainActor public protocol MoveWordRight { func moveWordRight(_ sender: Any?) }
    /// Handles `moveWordLeftAndModifySelection(_:)`.
    @MainActor public protocol MoveWordLeftAndModifySelection { func moveWordLeftAndModifySelection(_ sender: Any?) }
    /// Handles `moveWordRightAndModifySelection(_:)`.
    @MainActor public protocol MoveWordRightAndModifySelection { func moveWordRightAndModifySelection(_ sender: Any?) }
    /// Handles `moveToLeftEndOfLine(_:)`.
    @MainActor public protocol MoveToLeftEndOfLine { func moveToLeftEndOfLine(_ sender: Any?) }
    /// Handles `moveToRightEndOfLine(_:)`.
    @MainActor public protocol MoveToRightEndOfLine { func moveToRightEndOfLine(_ sender: Any?) }
    /// Handles `moveToLeftEndOfLineAndModifySelection(_:)`.
    @MainActor public protocol MoveToLeftEndOfLineAndModifySelection { func moveToLeftEndOfLineAndModifySelection(_ sender: Any?) }
    /// Handles `moveToRightEndOfLineAndModifySelection(_:)`.
    @MainActor public protocol MoveToRightEndOfLineAndModifySelection { func moveToRightEndOfLineAndModifySelection(_ sender: Any?) }
    /// Handles `moveToBeginningOfDocument(_:)`.
    @MainActor public protocol MoveToBeginningOfDocument { func moveToBeginningOfDocument(_ sender: Any?) }
    /// Handles `moveToEndOfDocument(_:)`.
    @MainActor public protocol MoveToEndOfDocument { func moveToEndOfDocument(_ sender: Any?) }
    /// Handles `moveToBeginningOfDocumentAndModifySelection(_:)`.
    @MainActor public protocol MoveToBeginningOfDocumentAndModifySelection { func moveToBeginningOfDocumentAndModifySelection(_ sender: Any?) }
    /// Handles `moveToEndOfDocumentAndModifySelection(_:)`.
    @MainActor public protocol MoveToEndOfDocumentAndModifySelection { func moveToEndOfDocumentAndModifySelection(_ sender: Any?) }
    /// Handles `scrollToBeginningOfDocument(_:)`.
    @MainActor public protocol ScrollToBeginningOfDocument { func scrollToBeginningOfDocument(_ sender: Any?) }
    /// Handles `scrollToEndOfDocument(_:)`.
    @MainActor public protocol ScrollToEndOfDocument { func scrollToEndOfDocument(_ sender: Any?) }
    /// Handles `scrollPageUp(_:)`.
    @MainActor public protocol ScrollPageUp { func scrollPageUp(_ sender: Any?) }
    /// Handles `scrollPageDown(_:)`.
    @MainActor public protocol ScrollPageDown { func scrollPageDown(_ sender: Any?) }
    /// Handles `pageUp(_:)`.
    @MainActor public protocol PageUp { func pageUp(_ sender: Any?) }
    /// Handles `pageDown(_:)`.
    @MainActor public protocol PageDown { func pageDown(_ sender: Any?) }
    /// Handles `pageUpAndModifySelection(_:)`.
    @MainActor public protocol PageUpAndModifySelection { func pageUpAndModifySelection(_ sender: Any?) }
    /// Handles `pageDownAndModifySelection(_:)`.
    @MainActor public protocol PageDownAndModifySelection { func pageDownAndModifySelection(_ sender: Any?) }
    /// Handles `deleteBackward(_:)`.
    @MainActor public protocol DeleteBackward { func deleteBackward(_ sender: Any?) }
    /// Handles `deleteForward(_:)`.
    @MainActor public protocol DeleteForward { func deleteForward(_ sender: Any?) }
    /// Handles `deleteWordBackward(_:)`.
    @MainActor public protocol DeleteWordBackward { func deleteWordBackward(_ sender: Any?) }
    /// Handles `deleteWordForward(_:)`.
    @MainActor public protocol DeleteWordForward { func deleteWordForward(_ sender: Any?) }
    /// Handles `insertNewline(_:)`.
    @MainActor public protocol InsertNewline { func insertNewline(_ sender: Any?) }
    /// Handles `insertTab(_:)`.
    @MainActor public protocol InsertTab { func insertTab(_ sender: Any?) }
    /// Handles `insertBacktab(_:)`.
    @MainActor public protocol InsertBacktab { func insertBacktab(_ sender: Any?) }
    /// Handles `cancelOperation(_:)`.
    @MainActor public protocol CancelOperation { func cancelOperation(_ sender: Any?) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveUp {
    /// AppKit's `moveUp(_:)` command.
    public static let moveUp = Action("moveUp") { $0.moveUp($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveDown {
    /// AppKit's `moveDown(_:)` command.
    public static let moveDown = Action("moveDown") { $0.moveDown($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveLeft {
    /// AppKit's `moveLeft(_:)` command.
    public static let moveLeft = Action("moveLeft") { $0.moveLeft($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveRight {
    /// AppKit's `moveRight(_:)` command.
    public static let moveRight = Action("moveRight") { $0.moveRight($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveUpAndModifySelection {
    /// AppKit's `moveUpAndModifySelection(_:)` command.
    public static let moveUpAndModifySelection = Action("moveUpAndModifySelection") { $0.moveUpAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveDownAndModifySelection {
    /// AppKit's `moveDownAndModifySelection(_:)` command.
    public static let moveDownAndModifySelection = Action("moveDownAndModifySelection") { $0.moveDownAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveLeftAndModifySelection {
    /// AppKit's `moveLeftAndModifySelection(_:)` command.
    public static let moveLeftAndModifySelection = Action("moveLeftAndModifySelection") { $0.moveLeftAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveRightAndModifySelection {
    /// AppKit's `moveRightAndModifySelection(_:)` command.
    public static let moveRightAndModifySelection = Action("moveRightAndModifySelection") { $0.moveRightAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveWordLeft {
    /// AppKit's `moveWordLeft(_:)` command.
    public static let moveWordLeft = Action("moveWordLeft") { $0.moveWordLeft($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveWordRight {
    /// AppKit's `moveWordRight(_:)` command.
    public static let moveWordRight = Action("moveWordRight") { $0.moveWordRight($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveWordLeftAndModifySelection {
    /// AppKit's `moveWordLeftAndModifySelection(_:)` command.
    public static let moveWordLeftAndModifySelection = Action("moveWordLeftAndModifySelection") { $0.moveWordLeftAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveWordRightAndModifySelection {
    /// AppKit's `moveWordRightAndModifySelection(_:)` command.
    public static let moveWordRightAndModifySelection = Action("moveWordRightAndModifySelection") { $0.moveWordRightAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToLeftEndOfLine {
    /// AppKit's `moveToLeftEndOfLine(_:)` command.
    public static let moveToLeftEndOfLine = Action("moveToLeftEndOfLine") { $0.moveToLeftEndOfLine($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToRightEndOfLine {
    /// AppKit's `moveToRightEndOfLine(_:)` command.
    public static let moveToRightEndOfLine = Action("moveToRightEndOfLine") { $0.moveToRightEndOfLine($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToLeftEndOfLineAndModifySelection {
    /// AppKit's `moveToLeftEndOfLineAndModifySelection(_:)` command.
    public static let moveToLeftEndOfLineAndModifySelection = Action("moveToLeftEndOfLineAndModifySelection") { $0.moveToLeftEndOfLineAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToRightEndOfLineAndModifySelection {
    /// AppKit's `moveToRightEndOfLineAndModifySelection(_:)` command.
    public static let moveToRightEndOfLineAndModifySelection = Action("moveToRightEndOfLineAndModifySelection") { $0.moveToRightEndOfLineAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToBeginningOfDocument {
    /// AppKit's `moveToBeginningOfDocument(_:)` command.
    public static let moveToBeginningOfDocument = Action("moveToBeginningOfDocument") { $0.moveToBeginningOfDocument($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToEndOfDocument {
    /// AppKit's `moveToEndOfDocument(_:)` command.
    public static let moveToEndOfDocument = Action("moveToEndOfDocument") { $0.moveToEndOfDocument($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToBeginningOfDocumentAndModifySelection {
    /// AppKit's `moveToBeginningOfDocumentAndModifySelection(_:)` command.
    public static let moveToBeginningOfDocumentAndModifySelection = Action("moveToBeginningOfDocumentAndModifySelection") { $0.moveToBeginningOfDocumentAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.MoveToEndOfDocumentAndModifySelection {
    /// AppKit's `moveToEndOfDocumentAndModifySelection(_:)` command.
    public static let moveToEndOfDocumentAndModifySelection = Action("moveToEndOfDocumentAndModifySelection") { $0.moveToEndOfDocumentAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.ScrollToBeginningOfDocument {
    /// AppKit's `scrollToBeginningOfDocument(_:)` command.
    public static let scrollToBeginningOfDocument = Action("scrollToBeginningOfDocument") { $0.scrollToBeginningOfDocument($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.ScrollToEndOfDocument {
    /// AppKit's `scrollToEndOfDocument(_:)` command.
    public static let scrollToEndOfDocument = Action("scrollToEndOfDocument") { $0.scrollToEndOfDocument($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.ScrollPageUp {
    /// AppKit's `scrollPageUp(_:)` command.
    public static let scrollPageUp = Action("scrollPageUp") { $0.scrollPageUp($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.ScrollPageDown {
    /// AppKit's `scrollPageDown(_:)` command.
    public static let scrollPageDown = Action("scrollPageDown") { $0.scrollPageDown($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.PageUp {
    /// AppKit's `pageUp(_:)` command.
    public static let pageUp = Action("pageUp") { $0.pageUp($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.PageDown {
    /// AppKit's `pageDown(_:)` command.
    public static let pageDown = Action("pageDown") { $0.pageDown($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.PageUpAndModifySelection {
    /// AppKit's `pageUpAndModifySelection(_:)` command.
    public static let pageUpAndModifySelection = Action("pageUpAndModifySelection") { $0.pageUpAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.PageDownAndModifySelection {
    /// AppKit's `pageDownAndModifySelection(_:)` command.
    public static let pageDownAndModifySelection = Action("pageDownAndModifySelection") { $0.pageDownAndModifySelection($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.DeleteBackward {
    /// AppKit's `deleteBackward(_:)` command.
    public static let deleteBackward = Action("deleteBackward") { $0.deleteBackward($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.DeleteForward {
    /// AppKit's `deleteForward(_:)` command.
    public static let deleteForward = Action("deleteForward") { $0.deleteForward($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.DeleteWordBackward {
    /// AppKit's `deleteWordBackward(_:)` command.
    public static let deleteWordBackward = Action("deleteWordBackward") { $0.deleteWordBackward($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.DeleteWordForward {
    /// AppKit's `deleteWordForward(_:)` command.
    public static let deleteWordForward = Action("deleteWordForward") { $0.deleteWordForward($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.InsertNewline {
    /// AppKit's `insertNewline(_:)` command.
    public static let insertNewline = Action("insertNewline") { $0.insertNewline($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.InsertTab {
    /// AppKit's `insertTab(_:)` command.
    public static let insertTab = Action("insertTab") { $0.insertTab($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.InsertBacktab {
    /// AppKit's `insertBacktab(_:)` command.
    public static let insertBacktab = Action("insertBacktab") { $0.insertBacktab($1) }
}
extension Action where Handler == any StandardKeyBindingResponding.CancelOperation {
    /// AppKit's `cancelOperation(_:)` command.
    public static let cancelOperation = Action("cancelOperation") { $0.cancelOperation($1) }
}
