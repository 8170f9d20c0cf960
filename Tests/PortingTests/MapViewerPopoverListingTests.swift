import Baton
import BatonTestSupport
import Foundation
import XCTest

// Apple's "Continuing User Activities with Handoff" (HandoffMapViewer), section "Update the
// Original Device's State (Optional)"
// (https://developer.apple.com/documentation/foundation/continuing-user-activities-with-handoff):
// the map view controller is the store-editing activity's delegate, and when the activity is
// continued on another device it dismisses its store popover. The listing below is Apple's,
// with the types renamed only (NSUserActivity → UserActivity); the classes around it are the
// sample's shapes, reduced to what the listing uses.

// The sample's names are kept; the enum keeps them apart from other ports of the same sample
// in this target.

// The sample's activity-type constants are declared once for this target, in
// ContinuingUserActivitiesListingTests.swift.

private enum PopoverListing {
    final class StoreDetailViewController: ViewController {}

    final class MapViewController: ViewController, UserActivityDelegate {
        // MARK: Apple's listing, verbatim but for the type renames.
        func userActivityWasContinued(_ userActivity: UserActivity) {
            DispatchQueue.main.async {[weak self] in
                if let detailVC = self?.presentedViewController as? StoreDetailViewController,
                   userActivity.activityType == UserActivity.storeEditingActivityType {
                    detailVC.dismiss(animated: true)
                }
            }
        }
    }
}

final class MapViewerPopoverListingTests: XCTestCase {
    /// The store popover is dismissed when the store-editing activity is continued elsewhere:
    /// the activity's delegate gets `userActivityWasContinued(_:)` (what the continuity layer
    /// calls on the originating device once the other device has continued it), the listing
    /// dismisses the popover on the main queue, its window closes and the map window is key
    /// again.
    func testThePopoverIsDismissedWhenStoreEditingIsContinuedElsewhere() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let mapVC = PopoverListing.MapViewController(title: "map")
            let mapWindow = Window(title: "map", contentViewController: mapVC)
            defer { mapWindow.close() }
            mapWindow.makeKeyAndOrderFront(nil)

            let storeEditingActivity = UserActivity(activityType: UserActivity.storeEditingActivityType)
            storeEditingActivity.delegate = mapVC
            defer { storeEditingActivity.invalidate() }
            let detailVC = PopoverListing.StoreDetailViewController(title: "Apple Union Square")
            mapVC.present(detailVC, asPopoverRelativeTo: NSRect(x: 100, y: 100, width: 1, height: 1),
                          of: mapVC.view, preferredEdge: .maxY, behavior: .transient)
            let popoverWindow = detailVC.view.window
            XCTAssertTrue(Application.shared.keyWindow === popoverWindow, "the popover is key while shown")

            storeEditingActivity.delegate?.userActivityWasContinued(storeEditingActivity)
            XCTAssertTrue(mapVC.presentedViewController === detailVC, "the listing dismisses on the main queue, later")
            spin(until: { mapVC.presentedViewController == nil })
            XCTAssertNil(detailVC.presentingViewController)
            XCTAssertEqual(popoverWindow?.isClosed, true)
            XCTAssertTrue(Application.shared.keyWindow === mapWindow)
        }
    }

    /// Another activity's continuation (map viewing) leaves the popover shown, as the listing's
    /// condition says.
    func testAnotherActivityLeavesThePopover() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let mapVC = PopoverListing.MapViewController(title: "map")
            let mapWindow = Window(title: "map", contentViewController: mapVC)
            defer { mapWindow.close() }
            mapWindow.makeKeyAndOrderFront(nil)
            let mapViewingActivity = UserActivity(activityType: UserActivity.mapViewingActivityType)
            mapViewingActivity.delegate = mapVC
            defer { mapViewingActivity.invalidate() }
            let detailVC = PopoverListing.StoreDetailViewController(title: "Apple Fifth Avenue")
            mapVC.present(detailVC, asPopoverRelativeTo: NSRect(x: 0, y: 0, width: 1, height: 1),
                          of: mapVC.view, preferredEdge: .minY, behavior: .transient)
            defer { mapVC.dismiss(detailVC) }

            mapViewingActivity.delegate?.userActivityWasContinued(mapViewingActivity)
            drainIdle()
            XCTAssertTrue(mapVC.presentedViewController === detailVC)
        }
    }
}
