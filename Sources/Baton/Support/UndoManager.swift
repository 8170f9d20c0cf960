import BatonLoop
import Foundation

/// A recorder of undo and redo operations (Foundation's `UndoManager`, which the Foundation
/// of Linux does not have: there, `UndoManager` in an app that imports Baton is this class).
///
/// Operations are registered with `registerUndo(withTarget:handler:)` and collected in undo
/// groups; `undo()` runs the handlers of the last group, in reverse order of registration, and
/// what they register while undoing becomes the redo group; `redo()` does the same the other
/// way. Registering a new change (not while undoing or redoing) clears the redo stack.
///
/// With `groupsByEvent` (true by default, as in Foundation) a group opens by itself at the
/// first registration and closes at the end of that turn of the app's GLib loop (when the loop
/// is next idle), as Foundation closes it at the end of the run-loop pass. With it false,
/// bracket registrations in `beginUndoGrouping()`/`endUndoGrouping()`.
///
/// Responders find theirs through `Responder.undoManager` (the window's, up the chain).
/// It posts `checkpointNotification`, `willUndoChangeNotification`, … with the manager as
/// `object`, as Foundation does. Main actor only, as AppKit's use of it is.
///
/// Deviations from Foundation: the target of `registerUndo(withTarget:handler:)` is held
/// weakly (Foundation does not retain it either), and an operation whose target is gone is
/// skipped; the Objective-C forms (`registerUndo(withTarget:selector:object:)`,
/// `prepare(withInvocationTarget:)`) do not exist, since Baton has no selectors.
@MainActor
open class UndoManager {
    private struct Operation {
        weak var target: AnyObject?
        let perform: (AnyObject) -> Void
    }

    private struct Group {
        var operations: [Operation] = []
        var actionName = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The group being built (outermost level), on the undo stack's side or, while undoing,
    /// the redo stack's.
    private var openGroup: Group?
    private var disabledCount = 0
    private var turnEnd: LoopSource?

    /// Creates an empty undo manager (Foundation's `init()`).
    public init() {}

    deinit { turnEnd?.cancel() }

    // MARK: Registering

    /// Records `handler` as the operation that undoes a change to `target`
    /// (`registerUndo(withTarget:handler:)`). Registered while undoing, it becomes a redo
    /// operation; otherwise it is an undo operation, and the redo stack is cleared unless
    /// redoing. Ignored while registration is disabled. With `groupsByEvent` it opens a group
    /// when none is open; with `groupsByEvent` false and no open group it traps, as Foundation
    /// raises an exception.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType,
                                                  handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroup == nil {
            precondition(groupsByEvent, "UndoManager: registerUndo(withTarget:handler:) with no open undo group "
                         + "while groupsByEvent is false; call beginUndoGrouping() first")
            beginUndoGrouping()
            scheduleTurnEnd()
        }
        if !isUndoing && !isRedoing { redoStack.removeAll() }
        openGroup?.operations.append(Operation(target: target) { object in
            if let typed = object as? TargetType { handler(typed) }
        })
    }

    /// Removes every undo and redo operation and closes any open group
    /// (`removeAllActions()`).
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        groupingLevel = 0
        turnEnd?.cancel()
        turnEnd = nil
    }

    /// Removes every undo and redo operation registered with `target`
    /// (`removeAllActions(withTarget:)`); groups left empty are dropped.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        func strip(_ group: inout Group) { group.operations.removeAll { $0.target === object || $0.target == nil } }
        for index in undoStack.indices { strip(&undoStack[index]) }
        for index in redoStack.indices { strip(&redoStack[index]) }
        undoStack.removeAll { $0.operations.isEmpty }
        redoStack.removeAll { $0.operations.isEmpty }
        if openGroup != nil { strip(&openGroup!) }
    }

    /// Whether registrations are recorded (`isUndoRegistrationEnabled`).
    open var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    /// Stops recording registrations until the matching `enableUndoRegistration()`; calls nest.
    open func disableUndoRegistration() { disabledCount += 1 }

    /// Balances a `disableUndoRegistration()`.
    open func enableUndoRegistration() {
        precondition(disabledCount > 0, "UndoManager: enableUndoRegistration() without disableUndoRegistration()")
        disabledCount -= 1
    }

    // MARK: Groups

    /// Whether a group opens at the first registration of each turn of the loop and closes at
    /// its end (`groupsByEvent`, true by default).
    open var groupsByEvent = true

    /// How many groups are open (nested) now (`groupingLevel`).
    public private(set) var groupingLevel = 0

    /// The most groups the undo stack keeps; the oldest are dropped beyond it. 0 (the
    /// default) keeps all (`levelsOfUndo`).
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// Opens a group (`beginUndoGrouping()`); groups nest, and the operations of nested groups
    /// are undone together with the outermost one. Posts `didOpenUndoGroupNotification`
    /// (and `checkpointNotification`).
    open func beginUndoGrouping() {
        if groupingLevel == 0 { openGroup = Group() }
        groupingLevel += 1
        post(UndoManager.checkpointNotification)
        post(UndoManager.didOpenUndoGroupNotification)
    }

    /// Closes the innermost group (`endUndoGrouping()`); closing the outermost puts it on the
    /// undo stack (the redo stack while undoing), unless it holds no operation. Traps with no
    /// open group, as Foundation raises an exception. Posts `willCloseUndoGroupNotification`
    /// and `didCloseUndoGroupNotification`.
    open func endUndoGrouping() {
        precondition(groupingLevel > 0, "UndoManager: endUndoGrouping() without beginUndoGrouping()")
        post(UndoManager.checkpointNotification)
        post(UndoManager.willCloseUndoGroupNotification)
        groupingLevel -= 1
        if groupingLevel == 0, let group = openGroup {
            openGroup = nil
            if !group.operations.isEmpty {
                if isUndoing { redoStack.append(group) } else { undoStack.append(group); trim() }
            }
        }
        post(UndoManager.didCloseUndoGroupNotification)
    }

    // MARK: Undo and redo

    /// Whether `undo()` has something to undo (`canUndo`).
    open var canUndo: Bool {
        !undoStack.isEmpty || (!isUndoing && !isRedoing && openGroup?.operations.isEmpty == false)
    }

    /// Whether `redo()` has something to redo (`canRedo`).
    open var canRedo: Bool { !redoStack.isEmpty }

    /// True while `undo()` runs its operations (`isUndoing`).
    public private(set) var isUndoing = false

    /// True while `redo()` runs its operations (`isRedoing`).
    public private(set) var isRedoing = false

    /// Undoes the last group (`undo()`): with `groupsByEvent` it first closes the group this
    /// turn opened; with a group still open then, it traps, as Foundation raises. The
    /// operations run in reverse order; those they register form the redo group, named as the
    /// undone group. Posts `willUndoChangeNotification` and `didUndoChangeNotification`.
    open func undo() {
        if groupsByEvent && groupingLevel == 1 { endTurnGroup() }
        precondition(groupingLevel == 0, "UndoManager: undo() with an undo group open; close it first")
        guard let group = undoStack.popLast() else { return }
        post(UndoManager.checkpointNotification)
        post(UndoManager.willUndoChangeNotification)
        isUndoing = true
        run(group, collectingInto: { redoStack.append($0) })
        isUndoing = false
        post(UndoManager.didUndoChangeNotification)
    }

    /// Redoes the last undone group (`redo()`), the same way; what it registers goes back on
    /// the undo stack without clearing the redo stack. Posts `willRedoChangeNotification` and
    /// `didRedoChangeNotification`.
    open func redo() {
        precondition(groupingLevel == 0 || (groupsByEvent && groupingLevel == 1),
                     "UndoManager: redo() with an undo group open; close it first")
        if groupsByEvent && groupingLevel == 1 { endTurnGroup() }
        guard let group = redoStack.popLast() else { return }
        post(UndoManager.checkpointNotification)
        post(UndoManager.willRedoChangeNotification)
        isRedoing = true
        run(group, collectingInto: { undoStack.append($0); trim() })
        isRedoing = false
        post(UndoManager.didRedoChangeNotification)
    }

    // MARK: Action names

    /// Names the change the open group (or else the last closed one) records, for a menu's
    /// "Undo …" item (`setActionName(_:)`). While undoing it names the redo group.
    open func setActionName(_ actionName: String) {
        if openGroup != nil { openGroup?.actionName = actionName }
        else if isUndoing, !redoStack.isEmpty { redoStack[redoStack.count - 1].actionName = actionName }
        else if !undoStack.isEmpty { undoStack[undoStack.count - 1].actionName = actionName }
    }

    /// The name of the change `undo()` would undo, or "" (`undoActionName`).
    open var undoActionName: String {
        if let openGroup, !openGroup.operations.isEmpty, !isUndoing, !isRedoing { return openGroup.actionName }
        return undoStack.last?.actionName ?? ""
    }

    /// The name of the change `redo()` would redo, or "" (`redoActionName`).
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    // MARK: Notifications

    /// Posted when a group opens or closes and before undo or redo
    /// (`NSUndoManagerCheckpoint`).
    nonisolated public static let checkpointNotification = Notification.Name("BatonUndoManagerCheckpoint")
    /// Posted before `undo()` runs its operations (`NSUndoManagerWillUndoChange`).
    nonisolated public static let willUndoChangeNotification = Notification.Name("BatonUndoManagerWillUndoChange")
    /// Posted after `undo()` ran its operations (`NSUndoManagerDidUndoChange`).
    nonisolated public static let didUndoChangeNotification = Notification.Name("BatonUndoManagerDidUndoChange")
    /// Posted before `redo()` runs its operations (`NSUndoManagerWillRedoChange`).
    nonisolated public static let willRedoChangeNotification = Notification.Name("BatonUndoManagerWillRedoChange")
    /// Posted after `redo()` ran its operations (`NSUndoManagerDidRedoChange`).
    nonisolated public static let didRedoChangeNotification = Notification.Name("BatonUndoManagerDidRedoChange")
    /// Posted when a group opens (`NSUndoManagerDidOpenUndoGroup`).
    nonisolated public static let didOpenUndoGroupNotification = Notification.Name("BatonUndoManagerDidOpenUndoGroup")
    /// Posted before a group closes (`NSUndoManagerWillCloseUndoGroup`).
    nonisolated public static let willCloseUndoGroupNotification = Notification.Name("BatonUndoManagerWillCloseUndoGroup")
    /// Posted after a group closed (`NSUndoManagerDidCloseUndoGroup`).
    nonisolated public static let didCloseUndoGroupNotification = Notification.Name("BatonUndoManagerDidCloseUndoGroup")

    // MARK: Private

    private func run(_ group: Group, collectingInto store: (Group) -> Void) {
        let outer = (openGroup, groupingLevel)
        openGroup = Group(actionName: group.actionName)
        groupingLevel = 1
        for operation in group.operations.reversed() {
            if let target = operation.target { operation.perform(target) }
        }
        if let collected = openGroup, !collected.operations.isEmpty { store(collected) }
        (openGroup, groupingLevel) = outer
    }

    /// Closes the group `groupsByEvent` opened, at the end of this turn of the loop.
    private func scheduleTurnEnd() {
        guard groupsByEvent, turnEnd == nil else { return }
        turnEnd = MainLoop.idle { [weak self] in
            guard let self else { return }
            self.turnEnd = nil
            if self.groupsByEvent && self.groupingLevel == 1 { self.endUndoGrouping() }
        }
    }

    private func endTurnGroup() {
        turnEnd?.cancel()
        turnEnd = nil
        endUndoGrouping()
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    private func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}
