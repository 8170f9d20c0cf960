// GtkNotes: a note editor on GTK 4 whose notes hand off between the user's devices.
//
//     baton-gtknotes [--agent SOCKET] [--notes DIR] [FILE…]
//         the notes in DIR (default $XDG_DATA_HOME/baton-gtknotes), a window listing them and a
//         window per open note; FILEs (text files) open in windows of their own. Joined to the
//         agent at SOCKET, the note being edited is offered to the user's other devices, and a
//         note continued from one opens here at the same place. A second launch hands its FILEs
//         to the running one (one instance per session).
//     --type TEXT [--cursor N] [--label LABEL]
//                                   at launch, a new note with TEXT typed in, the cursor at N,
//                                   labelled LABEL (none, red, orange, green, blue, purple)
//     --type-when-continued TEXT    (for tests) type TEXT at the cursor of each note continued
//                                   here once it is restored, the focus left in its text view
//     --screenshot PNG [--quit-after-screenshot]
//                                   save a picture of the first note window continued here (or
//                                   opened by --type) once GTK has drawn it; then quit
//     --screenshot-banner PNG       save a picture of the first note window whose note continued
//                                   on another device, with its banner
//     --gapplication-service        started by the session bus (D-Bus activation of an app
//                                   installed with `baton app install --dbus-activatable`): handed
//                                   to GApplication, which waits for the bus's Activate or Open
import Baton
import BatonGtk
import ExampleSupport
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: baton-gtknotes [--agent SOCKET] [--notes DIR] [--type TEXT [--cursor N] [--label LABEL]] [--type-when-continued TEXT] [--screenshot PNG [--quit-after-screenshot]] [--screenshot-banner PNG] [FILE…]"
if arguments.contains("--help") {
    say(usage)
    exit(0)
}
let valued: Set = ["--agent", "--notes", "--type", "--type-when-continued", "--cursor", "--label", "--screenshot", "--screenshot-banner"]
var files: [URL] = []
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    if valued.contains(argument) {
        index += 2
        continue
    }
    if argument == "--quit-after-screenshot" || argument == "--gapplication-service" {
        index += 1
        continue
    }
    guard !argument.hasPrefix("--") else { ExampleArguments.refuse("unknown option \(shown(argument))\n\(usage)") }
    files.append(URL(fileURLWithPath: argument))
    index += 1
}
let options = NotesOptions(
    folder: value(after: "--notes").map { URL(fileURLWithPath: $0) } ?? NoteStore.defaultFolder,
    typing: value(after: "--type"), cursor: number(after: "--cursor"),
    label: value(after: "--label").map { name -> NoteLabel in
        guard let label = NoteLabel(rawValue: name) else { ExampleArguments.refuse("unknown label \(shown(name))\n\(usage)") }
        return label
    }, typingWhenContinued: value(after: "--type-when-continued"),
    screenshot: value(after: "--screenshot").map { URL(fileURLWithPath: $0) },
    quitAfterScreenshot: arguments.contains("--quit-after-screenshot"),
    bannerScreenshot: value(after: "--screenshot-banner").map { URL(fileURLWithPath: $0) })
let device = DeviceOptions.fromCommandLine().map { ExampleDevice($0) }

installManifest(from: Bundle.module)
let status = GtkApplicationMain(delegate: GtkNotesApp(options: options, device: device), openingFiles: files)
exit(status != 0 ? status : exitCode)
