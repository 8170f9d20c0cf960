import BatonGtk

@MainActor protocol Saving { func save(_ sender: Any?) }
extension Action where Handler == any Saving {
    static let save = Action("save") { $0.save($1) }
}

try GtkRuntime.initialize()
Application.shared.finishLaunching()
let text = WidgetView(widget: gtk_text_view_new())
text.userActivity = UserActivity(activityType: "com.example.notes.editing")
let window = GtkBackedWindow(title: "Notes")
window.contentView = text            // its widget becomes the GTK window's child
try window.addAction(.save, named: "save", shortcut: "<Control>s")  // to whoever is Saving up the chain
window.makeKeyAndOrderFront(nil)     // GTK shows and presents the window
Application.shared.run()
