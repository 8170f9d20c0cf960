import Baton

// Minimal stand-ins for the MapKit, Core Location and UIKit types the seeds' listings use and
// Baton does not have. They hold only what the listings read and write, so the listings keep
// Apple's bodies.

/// Core Location's `CLLocationDegrees`.
typealias CLLocationDegrees = Double

/// Core Location's `CLLocationCoordinate2D` (only `latitude` and `longitude`).
struct CLLocationCoordinate2D: Equatable {
    var latitude: CLLocationDegrees
    var longitude: CLLocationDegrees
}

/// MapKit's `MKCoordinateSpan` (only the two deltas).
struct MKCoordinateSpan: Equatable {
    var latitudeDelta: CLLocationDegrees
    var longitudeDelta: CLLocationDegrees
}

/// MapKit's `MKCoordinateRegion` (only `center` and `span`).
struct MKCoordinateRegion: Equatable {
    var center: CLLocationCoordinate2D
    var span: MKCoordinateSpan
}

/// UIKit's `UINavigationController`, renamed as the rest: only `viewControllers`.
final class NavigationController: ViewController {
    var viewControllers: [ViewController] = []
}

extension Window {
    /// UIKit's `UIWindow.rootViewController`; a Baton window's root is its content view controller.
    var rootViewController: ViewController? { contentViewController }
}
