// Reader: an article reader handing off between devices, or to the web browser.
//     baton-reader DEVICE-OPTIONS --read ARTICLE [--page N] [--scroll F]   read; exit once continued elsewhere
//     baton-reader DEVICE-OPTIONS --continue-nearby                       continue the article read elsewhere
// Where no Reader is installed, `baton continue` opens the article's web page in the browser.
// DEVICE-OPTIONS: --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…
import Baton
import BatonContinuity
import ExampleSupport

final class ReaderApp: ApplicationDelegate {
    let reader = ArticleViewController(title: "article")
    lazy var window = Window(title: "Reader", contentViewController: reader)
    let device: ExampleDevice
    let reading: (article: Int, page: Int, scroll: Double)?

    init(device: ExampleDevice, reading: (Int, Int, Double)?) {
        self.device = device
        self.reading = reading
    }

    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront()
        window.makeFirstResponder(reader.view)
        do { try device.start() } catch { return fail("\(error)") }
        if let reading {
            reader.read(article: reading.article, page: reading.page, scroll: reading.scroll)
        } else {
            device.continueFirstNearby(of: [ArticleViewController.readingType, UserActivity.browsingWebType]) {
                Application.shared.terminate(nil)
            }
        }
    }

    func applicationWillTerminate(_ notification: Notification) { device.stop() }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        restoreInKeyWindow(ArticleViewController.self, restorationHandler)
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        fail("could not continue \(userActivityType): \(error.localizedDescription)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: baton-reader \(DeviceOptions.usage) (--read ARTICLE [--page N] [--scroll F] | --continue-nearby)"
guard let options = DeviceOptions(arguments: arguments) else {
    say(usage)
    exit(2)
}
let reading: (Int, Int, Double)? = value(after: "--read").flatMap(Int.init).map {
    ($0, value(after: "--page").flatMap(Int.init) ?? 1, value(after: "--scroll").flatMap(Double.init) ?? 0)
}
guard reading != nil || arguments.contains("--continue-nearby") else {
    say(usage)
    exit(2)
}
MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
    Application.main(delegate: ReaderApp(device: ExampleDevice(options), reading: reading))
}
exit(exitCode)
