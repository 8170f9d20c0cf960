/// One window of an app, as inspection shows it.
public struct WindowInspection: Codable, Sendable, Equatable {
    /// The window's `windowNumber`.
    public var number: Int
    /// The window's title.
    public var title: String
    /// The window's dynamic type name.
    public var typeName: String
    /// Whether the window is on screen (`isVisible`).
    public var isVisible: Bool
    /// Whether the window is a panel (a panel can be key, never main).
    public var isPanel: Bool
    /// Whether it is the key window.
    public var isKey: Bool
    /// Whether it is the main window (whose chain supplies the current activity).
    public var isMain: Bool
    /// The first responder's description, or nil when the window itself is.
    public var firstResponder: String?
    /// For the key and the main window: the responder chain from the first responder up to
    /// the app delegate (see `ResponderChain`); nil for other windows.
    public var responderChain: [ResponderInspection]?

    /// A window with these facts.
    public init(number: Int, title: String, typeName: String, isVisible: Bool, isPanel: Bool, isKey: Bool,
                isMain: Bool, firstResponder: String?, responderChain: [ResponderInspection]?) {
        self.number = number
        self.title = title
        self.typeName = typeName
        self.isVisible = isVisible
        self.isPanel = isPanel
        self.isKey = isKey
        self.isMain = isMain
        self.firstResponder = firstResponder
        self.responderChain = responderChain
    }
}

extension WindowInspection {
    /// `window` as it is now in `application`.
    @MainActor
    init(_ window: Window, in application: Application) {
        let isKey = application.keyWindow === window, isMain = application.mainWindow === window
        let first = window.firstResponder.flatMap { $0 === window ? nil : $0 }
        self.init(number: window.windowNumber, title: window.title, typeName: "\(type(of: window))",
                  isVisible: window.isVisible, isPanel: window is Panel, isKey: isKey, isMain: isMain,
                  firstResponder: first?.responderDescription,
                  responderChain: isKey || isMain ? ResponderInspection.chain(of: window, in: application) : nil)
    }
}
