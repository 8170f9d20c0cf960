// MapViewer: the seed "Continuing User Activities with Handoff" as a Baton app, between
// devices of one group (identities made by `baton`):
//     baton-mapviewer DEVICE-OPTIONS --view-region LAT,LON,DLAT,DLON   show a region; exit once it moves away
//     baton-mapviewer DEVICE-OPTIONS --edit-store NAME [--favorite]    edit a store; exit once continued
//     baton-mapviewer DEVICE-OPTIONS --continue-nearby                 continue what another device shows
// DEVICE-OPTIONS: --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…
import Baton
import BatonContinuity
import ExampleSupport

final class MapViewerApp: ApplicationDelegate {
    enum Mode {
        case view(MapRegion)
        case edit(Store, favorite: Bool)
        case continueNearby
    }

    let map = MapViewController(title: "map")
    lazy var window = Window(title: "Stores", contentViewController: map)
    let mode: Mode
    let device: ExampleDevice

    init(mode: Mode, device: ExampleDevice) {
        self.mode = mode
        self.device = device
    }

    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront()
        window.makeFirstResponder(map.view)
        do { try device.start() } catch { return fail("\(error)") }
        switch mode {
        case .view(let region): map.show(region)
        case .edit(let store, let favorite):
            map.show(MapRegion(centerLatitude: store.latitude, centerLongitude: store.longitude, spanLatitude: 0.05, spanLongitude: 0.05))
            map.edit(store, favorite: favorite)
        case .continueNearby:
            device.continueFirstNearby(of: [UserActivity.mapViewingActivityType, UserActivity.storeEditingActivityType]) {
                Application.shared.terminate(nil)
            }
        }
    }

    func applicationWillTerminate(_ notification: Notification) { device.stop() }

    /// "Receive User Activities": the key window's content view controller restores it.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        restoreInKeyWindow(MapViewController.self, restorationHandler)
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        fail("could not continue \(userActivityType): \(error.localizedDescription)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let options = DeviceOptions(arguments: arguments) else {
    say("usage: baton-mapviewer \(DeviceOptions.usage) (--view-region LAT,LON,DLAT,DLON | --edit-store NAME [--favorite] | --continue-nearby)")
    exit(2)
}
let mode: MapViewerApp.Mode
if let text = value(after: "--view-region"), case let numbers = text.split(separator: ",").compactMap({ Double($0) }), numbers.count == 4 {
    mode = .view(MapRegion(centerLatitude: numbers[0], centerLongitude: numbers[1], spanLatitude: numbers[2], spanLongitude: numbers[3]))
} else if let name = value(after: "--edit-store") {
    guard let store = Store.named(name) else {
        say("error: no store named \(name); stores: \(Store.all.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    mode = .edit(store, favorite: arguments.contains("--favorite"))
} else if arguments.contains("--continue-nearby") {
    mode = .continueNearby
} else {
    say("usage: baton-mapviewer \(DeviceOptions.usage) (--view-region LAT,LON,DLAT,DLON | --edit-store NAME [--favorite] | --continue-nearby)")
    exit(2)
}

MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
    Application.main(delegate: MapViewerApp(mode: mode, device: ExampleDevice(options)))
}
exit(exitCode)
