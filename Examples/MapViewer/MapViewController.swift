import Baton
import ExampleSupport
import Foundation

/// The seed "Continuing User Activities with Handoff", ported: a map of stores with two
/// activities, viewing a region and editing a store's details (its favorite mark).
final class MapViewController: ViewController, UserActivityDelegate {
    private(set) var region = MapRegion(centerLatitude: 37.33, centerLongitude: -122.03, spanLatitude: 0.5, spanLongitude: 0.5)
    private(set) var editing: (store: Store, favorite: Bool)?
    let mapViewingActivity = UserActivity(activityType: UserActivity.mapViewingActivityType)
    lazy var storeEditingActivity: UserActivity = {
        let activity = UserActivity(activityType: UserActivity.storeEditingActivityType)
        activity.delegate = self  // "Update the Original Device's State"
        return activity
    }()

    override func loadView() { view = MapView(identifier: "map") }

    /// "Manage User Activities": the region changed.
    func show(_ region: MapRegion) {
        self.region = region
        mapViewingActivity.title = "Viewing the map"
        userActivity = mapViewingActivity
        mapViewingActivity.needsSave = true
        mapViewingActivity.becomeCurrent()
        say("showing the map at \(region)")
    }

    /// The user chose a store's pin: its details open in a popover next to the pin (AppKit's
    /// presentation API; the popover stays until the app dismisses it), and editing is the
    /// activity.
    func edit(_ store: Store, favorite: Bool) {
        editing = (store, favorite)
        let pin = NSRect(x: store.longitude, y: store.latitude, width: 1, height: 1)
        present(StoreDetailViewController(store: store, favorite: favorite), asPopoverRelativeTo: pin, of: view,
                preferredEdge: .maxY, behavior: .applicationDefined)
        storeEditingActivity.title = "Editing \(store.name)"
        userActivity = storeEditingActivity
        storeEditingActivity.needsSave = true
        storeEditingActivity.becomeCurrent()
        say("editing \(store.name) (favorite: \(favorite ? "yes" : "no")) in a popover")
    }

    override func updateUserActivityState(_ activity: UserActivity) {
        activity.updateViewingRegion(region)
        if activity.activityType == UserActivity.storeEditingActivityType, let (store, favorite) = editing {
            activity.addUserInfoEntries(from: [
                UserActivity.storeURLKeyString: store.url,
                UserActivity.storeLatitudeKeyString: store.latitude,
                UserActivity.storeLongitudeKeyString: store.longitude,
                UserActivity.storeFavoriteKeyString: favorite])
        }
        say("updateUserActivityState: \(activity.activityType.split(separator: ".").last!) saved")
    }

    /// "Update the App's State".
    override func restoreUserActivityState(_ activity: UserActivity) {
        super.restoreUserActivityState(activity)
        if let region = activity.viewingRegion() {
            self.region = region
            say("restoreUserActivityState: map at \(region)")
        }
        if activity.activityType == UserActivity.storeEditingActivityType,
           let url = activity.userInfo?[UserActivity.storeURLKeyString] as? URL, let store = Store.at(url),
           let latitude = activity.userInfo?[UserActivity.storeLatitudeKeyString] as? Double,
           let longitude = activity.userInfo?[UserActivity.storeLongitudeKeyString] as? Double {
            let favorite = activity.userInfo?[UserActivity.storeFavoriteKeyString] as? Bool ?? false
            editing = (store, favorite)
            say("restoreUserActivityState: editing \(store.name) at \(latitude), \(longitude) (favorite: \(favorite ? "yes" : "no"))")
        }
    }

    /// "Update the Original Device's State (Optional)": dismiss the popover. Apple's listing,
    /// types renamed, and then the example's report and exit.
    func userActivityWasContinued(_ userActivity: UserActivity) {
        DispatchQueue.main.async {[weak self] in
            if let detailVC = self?.presentedViewController as? StoreDetailViewController,
               userActivity.activityType == UserActivity.storeEditingActivityType {
                detailVC.dismiss(animated: true)
                say("userActivityWasContinued: editing continues on another device; dismissed the popover for \(detailVC.store.name)")
                Application.shared.terminate(nil)
            }
        }
    }
}

final class MapView: View {
    override var acceptsFirstResponder: Bool { true }
}
