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
    /// A responder that handles AppKit's `moveUp(_:)` command.
    @MainActor public protocol MoveUp {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveUp(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveDown(_:)` command.
    @MainActor public protocol MoveDown {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveDown(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveLeft(_:)` command.
    @MainActor public protocol MoveLeft {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveLeft(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveRight(_:)` command.
    @MainActor public protocol MoveRight {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveRight(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveUpAndModifySelection(_:)` command.
    @MainActor public protocol MoveUpAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveUpAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveDownAndModifySelection(_:)` command.
    @MainActor public protocol MoveDownAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveDownAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveLeftAndModifySelection(_:)` command.
    @MainActor public protocol MoveLeftAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveLeftAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveRightAndModifySelection(_:)` command.
    @MainActor public protocol MoveRightAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveRightAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveWordLeft(_:)` command.
    @MainActor public protocol MoveWordLeft {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveWordLeft(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveWordRight(_:)` command.
    @MainActor public protocol MoveWordRight {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveWordRight(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveWordLeftAndModifySelection(_:)` command.
    @MainActor public protocol MoveWordLeftAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveWordLeftAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveWordRightAndModifySelection(_:)` command.
    @MainActor public protocol MoveWordRightAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveWordRightAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToLeftEndOfLine(_:)` command.
    @MainActor public protocol MoveToLeftEndOfLine {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToLeftEndOfLine(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToRightEndOfLine(_:)` command.
    @MainActor public protocol MoveToRightEndOfLine {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToRightEndOfLine(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToLeftEndOfLineAndModifySelection(_:)` command.
    @MainActor public protocol MoveToLeftEndOfLineAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToLeftEndOfLineAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToRightEndOfLineAndModifySelection(_:)` command.
    @MainActor public protocol MoveToRightEndOfLineAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToRightEndOfLineAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToBeginningOfDocument(_:)` command.
    @MainActor public protocol MoveToBeginningOfDocument {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToBeginningOfDocument(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToEndOfDocument(_:)` command.
    @MainActor public protocol MoveToEndOfDocument {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToEndOfDocument(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToBeginningOfDocumentAndModifySelection(_:)` command.
    @MainActor public protocol MoveToBeginningOfDocumentAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToBeginningOfDocumentAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `moveToEndOfDocumentAndModifySelection(_:)` command.
    @MainActor public protocol MoveToEndOfDocumentAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func moveToEndOfDocumentAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `scrollToBeginningOfDocument(_:)` command.
    @MainActor public protocol ScrollToBeginningOfDocument {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func scrollToBeginningOfDocument(_ sender: Any?)
    }
    /// A responder that handles AppKit's `scrollToEndOfDocument(_:)` command.
    @MainActor public protocol ScrollToEndOfDocument {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func scrollToEndOfDocument(_ sender: Any?)
    }
    /// A responder that handles AppKit's `scrollPageUp(_:)` command.
    @MainActor public protocol ScrollPageUp {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func scrollPageUp(_ sender: Any?)
    }
    /// A responder that handles AppKit's `scrollPageDown(_:)` command.
    @MainActor public protocol ScrollPageDown {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func scrollPageDown(_ sender: Any?)
    }
    /// A responder that handles AppKit's `pageUp(_:)` command.
    @MainActor public protocol PageUp {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func pageUp(_ sender: Any?)
    }
    /// A responder that handles AppKit's `pageDown(_:)` command.
    @MainActor public protocol PageDown {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func pageDown(_ sender: Any?)
    }
    /// A responder that handles AppKit's `pageUpAndModifySelection(_:)` command.
    @MainActor public protocol PageUpAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func pageUpAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `pageDownAndModifySelection(_:)` command.
    @MainActor public protocol PageDownAndModifySelection {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func pageDownAndModifySelection(_ sender: Any?)
    }
    /// A responder that handles AppKit's `deleteBackward(_:)` command.
    @MainActor public protocol DeleteBackward {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func deleteBackward(_ sender: Any?)
    }
    /// A responder that handles AppKit's `deleteForward(_:)` command.
    @MainActor public protocol DeleteForward {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func deleteForward(_ sender: Any?)
    }
    /// A responder that handles AppKit's `deleteWordBackward(_:)` command.
    @MainActor public protocol DeleteWordBackward {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func deleteWordBackward(_ sender: Any?)
    }
    /// A responder that handles AppKit's `deleteWordForward(_:)` command.
    @MainActor public protocol DeleteWordForward {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func deleteWordForward(_ sender: Any?)
    }
    /// A responder that handles AppKit's `insertNewline(_:)` command.
    @MainActor public protocol InsertNewline {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func insertNewline(_ sender: Any?)
    }
    /// A responder that handles AppKit's `insertTab(_:)` command.
    @MainActor public protocol InsertTab {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func insertTab(_ sender: Any?)
    }
    /// A responder that handles AppKit's `insertBacktab(_:)` command.
    @MainActor public protocol InsertBacktab {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func insertBacktab(_ sender: Any?)
    }
    /// A responder that handles AppKit's `cancelOperation(_:)` command.
    @MainActor public protocol CancelOperation {
        /// Performs the command; `sender` is nil from `doCommand(by:)`.
        func cancelOperation(_ sender: Any?)
    }
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
