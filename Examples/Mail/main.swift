// Mail: a draft with a large attachment, handed off between devices of one group. The draft
// travels in the payload; the attachment over continuation streams.
//     baton-mail DEVICE-OPTIONS --compose --to ADDR --subject S --body B [--attach FILE [--as NAME]]
//         advertise the draft; exit once the other device has it (and its attachment, sent as NAME)
//     baton-mail DEVICE-OPTIONS --continue-nearby [--save-to DIR]
//         continue the draft, fetch the attachment into DIR, check it. The name the other device
//         gives is reduced to a plain file name in DIR, which replaces no file there.
//     baton-mail [--agent SOCKET] [--wait] [--save-to DIR]
//         joined to the agent (at SOCKET, else the user's own), wait until it hands over a draft
//         to continue (`baton continue`): the form the agent launches Mail with (docs/EXAMPLES.md)
// DEVICE-OPTIONS: --agent SOCKET (join the agent), or --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…, and the peers configured in
// $BATON_PEERS or $XDG_CONFIG_HOME/baton/peers. A bad value ends the app with status 2.
import Baton
import BatonContinuity
import ExampleSupport

final class MailApp: DeviceExampleApp<DraftViewController> {
    let composing: Bool

    init(device: ExampleDevice, composing: Bool) {
        self.composing = composing
        super.init(DraftViewController(title: "draft"), windowTitle: "New Message", device: device)
    }

    override func deviceStarted() {
        if composing {
            controller.onHandedOff = { MainLoop.idle { Application.shared.terminate(nil) } }
            controller.compose(to: value(after: "--to") ?? "", subject: value(after: "--subject") ?? "",
                               body: value(after: "--body") ?? "", attachment: value(after: "--attach").map { URL(fileURLWithPath: $0) },
                               named: value(after: "--as"))
        } else if arguments.contains("--continue-nearby") {
            device.continueFirstNearby(of: [DraftViewController.composeType]) {}
        } else {
            device.waitForTheAgent()
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: baton-mail \(DeviceOptions.usage) (--compose --to ADDR --subject S --body B [--attach FILE [--as NAME]] | --continue-nearby [--save-to DIR]) | baton-mail [--agent SOCKET] [--wait] [--save-to DIR]"
let waiting = !arguments.contains("--compose") && !arguments.contains("--continue-nearby")
guard let options = waiting ? DeviceOptions.waitingForTheAgent(options: ["--save-to": true, "--wait": false]) : DeviceOptions.fromCommandLine() else {
    say(usage)
    exit(2)
}
MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
    Application.main(delegate: MailApp(device: ExampleDevice(options), composing: arguments.contains("--compose")))
}
exit(exitCode)
