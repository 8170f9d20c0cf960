// Screens: a headless Baton app in a terminal. Windows are screens; keys switch windows and
// first responders; each key is an Event sent through Application.sendEvent(_:) and travels up
// the responder chain; it prints what the runtime does.
//
//     baton-screens            interactive (press s for the state, q to quit)
//     baton-screens --demo     a scripted tour that ends by itself
//     baton-screens --keys K   play the keys K, then quit
import Baton

let arguments = CommandLine.arguments.dropFirst()
let keys: KeySource =
    if arguments.first == "--demo" { .script("st2tcri1sctrtc" + "asah" + "s2\t\u{7F}wsq") }
    else if arguments.first == "--keys", let script = arguments.dropFirst().first { .script(script + "q") }
    else { .terminal() }

Application.main(delegate: ScreensApp(keys: keys))
