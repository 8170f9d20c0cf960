import Baton
import BatonTestSupport
import XCTest

// The Swift listings of "Continuing User Activities with Handoff" (the HandoffMapViewer sample),
// ported verbatim with type renames only (NSUserActivity → UserActivity, UIApplication and
// NSApplication → Application, UIUserActivityRestoring and NSUserActivityRestoring →
// UserActivityRestoring, UINavigationController → NavigationController). MapKit and Core
// Location types are stand-ins (MapKitStandIns.swift). The listing of `userActivityWasContinued`
// (dismissing the popover) is in MapViewerPopoverListingTests.swift.

extension UserActivity {
    // The sample's keys and activity types (its NSUserActivity extension; not shown in the guide).
    nonisolated static let mapViewingActivityType = "com.example.apple-samplecode.HandoffMapViewer.map-viewing"
    nonisolated static let storeEditingActivityType = "com.example.apple-samplecode.HandoffMapViewer.store-editing"
    nonisolated static let regionCenterLatitudeKeyString = "regionCenterLatitude"
    nonisolated static let regionCenterLongitudeKeyString = "regionCenterLongitude"
    nonisolated static let regionSpanLatitudeKeyString = "regionSpanLatitude"
    nonisolated static let regionSpanLongitudeKeyString = "regionSpanLongitude"

    // "Manage User Activities": verbatim.
    func updateViewingRegion(_ region: MKCoordinateRegion) {
        let updateDict = [
            UserActivity.regionCenterLatitudeKeyString: region.center.latitude,
            UserActivity.regionCenterLongitudeKeyString: region.center.longitude,
            UserActivity.regionSpanLatitudeKeyString: region.span.latitudeDelta,
            UserActivity.regionSpanLongitudeKeyString: region.span.longitudeDelta]
        addUserInfoEntries(from: updateDict)
    }

    // "Update the App's State": verbatim.
    func viewingRegion() -> MKCoordinateRegion? {
        guard let centerLatitude = userInfo?[UserActivity.regionCenterLatitudeKeyString] as? CLLocationDegrees,
            let centerLongitude = userInfo?[UserActivity.regionCenterLongitudeKeyString] as? CLLocationDegrees,
            let spanLatitude = userInfo?[UserActivity.regionSpanLatitudeKeyString] as? CLLocationDegrees,
            let spanLongitude = userInfo?[UserActivity.regionSpanLongitudeKeyString] as? CLLocationDegrees else {
                return nil
        }
        return MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: centerLatitude,
                                                                 longitude: centerLongitude),
                                  span: MKCoordinateSpan(latitudeDelta: spanLatitude,
                                                         longitudeDelta: spanLongitude))
    }
}

/// The sample's map view controller, with the parts the guide shows.
final class MapViewController: ViewController {
    let mapViewingActivity = UserActivity(activityType: UserActivity.mapViewingActivityType)
    var region = MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: 0, longitude: 0),
                                    span: MKCoordinateSpan(latitudeDelta: 1, longitudeDelta: 1))
    var loadViewCalls = 0

    override func loadView() {
        loadViewCalls += 1
        super.loadView()
    }

    /// The map region changed (MKMapViewDelegate's `regionDidChangeAnimated`, in the sample).
    func mapRegionDidChange(to newRegion: MKCoordinateRegion) {
        region = newRegion
        // "Manage User Activities": verbatim.
        userActivity = mapViewingActivity
        mapViewingActivity.needsSave = true
        mapViewingActivity.becomeCurrent()
    }

    // Described in "Manage User Activities" (its body is not shown): it encodes the map's region.
    override func updateUserActivityState(_ activity: UserActivity) {
        if activity.activityType == UserActivity.mapViewingActivityType {
            activity.updateViewingRegion(region)
        }
    }

    // Described in "Update the App's State" (its body is not shown): the map-viewing activity
    // resets the map region from the userInfo.
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        if userActivity.activityType == UserActivity.mapViewingActivityType, let region = userActivity.viewingRegion() {
            self.region = region
        }
    }
}

/// The sample's iOS app delegate ("Receive User Activities"): verbatim.
final class MapViewerIOSAppDelegate: ApplicationDelegate {
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([UserActivityRestoring]?) -> Void) -> Bool {
        guard let topNav = application.keyWindow?.rootViewController as? NavigationController,
            let mapVC = topNav.viewControllers.first as? MapViewController else {
            return false
        }
        
        mapVC.loadView()
        restorationHandler([mapVC])
        return true
    }
}

/// The sample's macOS app delegate ("Receive User Activities"): verbatim.
final class MapViewerMacAppDelegate: ApplicationDelegate {
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([UserActivityRestoring]) -> Void) -> Bool {
        guard let mapVC = application.keyWindow?.windowController?.contentViewController as? MapViewController else {
            return false
        }
        
        mapVC.loadView()
        restorationHandler([mapVC])
        return true
    }
}

let mapViewerManifest = AppManifest(
    appID: "com.example.apple-samplecode.HandoffMapViewer", teamIdentifier: "TEAM1",
    activityTypes: [UserActivity.mapViewingActivityType, UserActivity.storeEditingActivityType])

private let cupertino = MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: 37.3349, longitude: -122.009),
                                           span: MKCoordinateSpan(latitudeDelta: 0.05, longitudeDelta: 0.07))

/// A map-viewing activity as the originating device's MapViewController saves it.
@MainActor
private func mapViewingActivity(_ region: MKCoordinateRegion) -> UserActivity {
    let activity = UserActivity(activityType: UserActivity.mapViewingActivityType)
    activity.updateViewingRegion(region)
    return activity
}

/// continuing-user-activities-with-handoff.md.
final class ContinuingUserActivitiesListingTests: PortingTestCase {
    /// "Manage User Activities": setting the controller's `userActivity`, `needsSave` and
    /// `becomeCurrent()` make the activity current, and the save calls
    /// `updateUserActivityState(_:)`, whose `updateViewingRegion(_:)` fills `userInfo`.
    func testManageUserActivitiesSavesTheRegionThroughUpdateUserActivityState() throws {
        MainActor.assumeIsolated {
            launch(mapViewerManifest, MapViewerMacAppDelegate())
            let mapVC = MapViewController()
            let window = Window(title: "Map", contentViewController: mapVC)
            window.makeKeyAndOrderFront(nil)
            mapVC.mapRegionDidChange(to: cupertino)
            XCTAssertTrue(mapVC.mapViewingActivity.isCurrent)
            spin(until: { !mapVC.mapViewingActivity.needsSave })
            XCTAssertEqual(mapVC.mapViewingActivity.userInfo?[UserActivity.regionCenterLatitudeKeyString] as? Double, 37.3349)
            XCTAssertEqual(mapVC.mapViewingActivity.viewingRegion(), cupertino)
        }
    }

    /// "Update the App's State": `viewingRegion()` reads back what `updateViewingRegion(_:)`
    /// wrote, after the trip through a Handoff payload; a partial userInfo gives nil.
    func testViewingRegionRoundTripsThroughAHandoff() throws {
        try MainActor.assumeIsolated {
            let delegate = MapViewerMacAppDelegate()
            launch(mapViewerManifest, delegate)
            let mapVC = MapViewController()
            let controller = WindowController(window: Window(title: "Map", contentViewController: mapVC))
            controller.showWindow(nil)
            try handOff(mapViewingActivity(cupertino))
            XCTAssertEqual(mapVC.region, cupertino)
            let partial = UserActivity(activityType: UserActivity.mapViewingActivityType)
            partial.userInfo = [UserActivity.regionCenterLatitudeKeyString: 1.0]
            XCTAssertNil(partial.viewingRegion())
        }
    }

    /// "Receive User Activities", the macOS app delegate (AppKit's signature, no `any`): it is
    /// called, loads the key window's MapViewController's view, and passes it to the
    /// restoration handler, which restores the region.
    func testTheMacOSAppDelegateListingRestoresTheKeyWindowsMapViewController() throws {
        try MainActor.assumeIsolated {
            launch(mapViewerManifest, MapViewerMacAppDelegate())
            let mapVC = MapViewController()
            let controller = WindowController(window: Window(title: "Map", contentViewController: mapVC))
            controller.showWindow(nil)
            let loadsBefore = mapVC.loadViewCalls
            try handOff(mapViewingActivity(cupertino))
            XCTAssertEqual(mapVC.loadViewCalls, loadsBefore + 1, "the listing calls loadView()")
            XCTAssertEqual(mapVC.region, cupertino)
        }
    }

    /// "Receive User Activities", the iOS app delegate (UIKit's signature, no `any`): the
    /// first view controller of the key window's navigation controller restores the region.
    func testTheIOSAppDelegateListingRestoresTheNavigationStacksMapViewController() throws {
        try MainActor.assumeIsolated {
            launch(mapViewerManifest, MapViewerIOSAppDelegate())
            let mapVC = MapViewController()
            let topNav = NavigationController()
            topNav.viewControllers = [mapVC]
            Window(title: "Map", contentViewController: topNav).makeKeyAndOrderFront(nil)
            try handOff(mapViewingActivity(cupertino))
            XCTAssertEqual(mapVC.loadViewCalls, 1, "the listing calls loadView()")
            XCTAssertEqual(mapVC.region, cupertino)
        }
    }

    /// "Receive User Activities": the delegate returns false when there is no MapViewController
    /// (no key window), and nothing is restored.
    func testTheMacOSAppDelegateListingDeclinesWithoutAKeyWindow() throws {
        try MainActor.assumeIsolated {
            launch(mapViewerManifest, MapViewerMacAppDelegate())
            let mapVC = MapViewController()
            try handOff(mapViewingActivity(cupertino))
            XCTAssertEqual(mapVC.loadViewCalls, 0)
            XCTAssertNotEqual(mapVC.region, cupertino)
        }
    }
}
