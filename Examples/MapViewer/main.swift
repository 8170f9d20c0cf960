// MapViewer: the seed "Continuing User Activities with Handoff" as a Baton app, between
// devices of one group (identities made by `baton`):
//     baton-mapviewer DEVICE-OPTIONS --view-region LAT,LON,DLAT,DLON   show a region; exit once it moves away
//     baton-mapviewer DEVICE-OPTIONS --edit-store NAME [--favorite]    edit a store; exit once continued
//     baton-mapviewer DEVICE-OPTIONS --continue-nearby                 continue what another device shows
//     baton-mapviewer [--agent SOCKET]     joined to the agent (at SOCKET, else the user's own), wait until it
//                                          hands over a region or store: the form the agent launches MapViewer with
// DEVICE-OPTIONS: --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…, and the peers configured in
// $BATON_PEERS or $XDG_CONFIG_HOME/baton/peers. A bad value ends the app with status 2.
import Baton
import BatonContinuity
import ExampleSupport

/// "Receive User Activities": the key window's content view controller, the map, restores
/// what another device continues (`DeviceExampleApp`).
final class MapViewerApp: DeviceExampleApp<MapViewController> {
    enum Mode {
        case view(MapRegion)
        case edit(Store, favorite: Bool)
        case continueNearby
        /// Launched by the agent: continue what it hands over.
        case waitForTheAgent
    }

    let mode: Mode

    init(mode: Mode, device: ExampleDevice) {
        self.mode = mode
        super.init(MapViewController(title: "map"), windowTitle: "Stores", device: device)
    }

    override func deviceStarted() {
        switch mode {
        case .view(let region): controller.show(region)
        case .edit(let store, let favorite):
            controller.show(MapRegion(centerLatitude: store.latitude, centerLongitude: store.longitude, spanLatitude: 0.05, spanLongitude: 0.05))
            controller.edit(store, favorite: favorite)
        case .waitForTheAgent:
            device.waitForTheAgent()
        case .continueNearby:
            device.continueFirstNearby(of: [UserActivity.mapViewingActivityType, UserActivity.storeEditingActivityType]) {
                Application.shared.terminate(nil)
            }
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: baton-mapviewer \(DeviceOptions.usage) (--view-region LAT,LON,DLAT,DLON | --edit-store NAME [--favorite] | --continue-nearby) | baton-mapviewer [--agent SOCKET]"
let waiting = !["--view-region", "--edit-store", "--continue-nearby"].contains(where: arguments.contains)
guard let options = waiting ? DeviceOptions.waitingForTheAgent() : DeviceOptions.fromCommandLine() else {
    say(usage)
    exit(2)
}
let mode: MapViewerApp.Mode
if waiting {
    mode = .waitForTheAgent
} else if let text = value(after: "--view-region") {
    let numbers = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
    guard numbers.count == 4 else { ExampleArguments.refuse("--view-region takes LAT,LON,DLAT,DLON, not '\(shown(text))'") }
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
    say(usage)
    exit(2)
}

MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
    Application.main(delegate: MapViewerApp(mode: mode, device: ExampleDevice(options)))
}
exit(exitCode)
