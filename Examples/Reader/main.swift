// Reader: an article reader handing off between devices, or to the web browser.
//     baton-reader DEVICE-OPTIONS --read ARTICLE [--page N] [--scroll F]   read; exit once continued elsewhere
//     baton-reader DEVICE-OPTIONS --continue-nearby                       continue the article read elsewhere
//     baton-reader [--agent SOCKET]        joined to the agent (at SOCKET, else the user's own), wait until it
//                                          hands over an article: the form the agent launches Reader with
// Where no Reader is installed, `baton continue` opens the article's web page in the browser.
// DEVICE-OPTIONS: --agent SOCKET (join the agent), or --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…, and the peers configured in
// $BATON_PEERS or $XDG_CONFIG_HOME/baton/peers. A bad value ends the app with status 2.
import Baton
import BatonContinuity
import ExampleSupport

final class ReaderApp: DeviceExampleApp<ArticleViewController> {
    let reading: (article: Int, page: Int, scroll: Double)?

    let waiting: Bool

    init(device: ExampleDevice, reading: (Int, Int, Double)?, waiting: Bool) {
        self.reading = reading
        self.waiting = waiting
        super.init(ArticleViewController(title: "article"), windowTitle: "Reader", device: device)
    }

    override func deviceStarted() {
        if let reading {
            controller.read(article: reading.article, page: reading.page, scroll: reading.scroll)
        } else if waiting {
            device.waitForTheAgent()
        } else {
            device.continueFirstNearby(of: [ArticleViewController.readingType, UserActivity.browsingWebType]) {
                Application.shared.terminate(nil)
            }
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: baton-reader \(DeviceOptions.usage) (--read ARTICLE [--page N] [--scroll F] | --continue-nearby) | baton-reader [--agent SOCKET]"
let waiting = !arguments.contains("--read") && !arguments.contains("--continue-nearby")
guard let options = waiting ? DeviceOptions.waitingForTheAgent() : DeviceOptions.fromCommandLine() else {
    say(usage)
    exit(2)
}
let reading: (Int, Int, Double)? = number(after: "--read", as: Int.self).map {
    ($0, number(after: "--page") ?? 1, number(after: "--scroll") ?? 0)
}
guard reading != nil || waiting || arguments.contains("--continue-nearby") else {
    say(usage)
    exit(2)
}
MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
    Application.main(delegate: ReaderApp(device: ExampleDevice(options), reading: reading, waiting: waiting))
}
exit(exitCode)
