import Baton

/// A map region: its center and span in degrees (MapKit's `MKCoordinateRegion`).
struct MapRegion: Equatable, CustomStringConvertible {
    var centerLatitude: Double
    var centerLongitude: Double
    var spanLatitude: Double
    var spanLongitude: Double

    var description: String {
        "center \(centerLatitude), \(centerLongitude), span \(spanLatitude) × \(spanLongitude)"
    }
}

/// The seed's extension on `NSUserActivity`: the region as four `userInfo` entries.
extension UserActivity {
    static let mapViewingActivityType = "com.example.apple-samplecode.HandoffMapViewer.map-viewing"
    static let storeEditingActivityType = "com.example.apple-samplecode.HandoffMapViewer.store-editing"
    static let regionCenterLatitudeKeyString = "regionCenterLatitude"
    static let regionCenterLongitudeKeyString = "regionCenterLongitude"
    static let regionSpanLatitudeKeyString = "regionSpanLatitude"
    static let regionSpanLongitudeKeyString = "regionSpanLongitude"
    static let storeURLKeyString = "storeURL"
    static let storeLatitudeKeyString = "storeLatitude"
    static let storeLongitudeKeyString = "storeLongitude"
    static let storeFavoriteKeyString = "storeFavorite"

    /// "Manage User Activities": encode the region into key-value entries in `userInfo`.
    func updateViewingRegion(_ region: MapRegion) {
        let updateDict: [AnyHashable: Any] = [
            UserActivity.regionCenterLatitudeKeyString: region.centerLatitude,
            UserActivity.regionCenterLongitudeKeyString: region.centerLongitude,
            UserActivity.regionSpanLatitudeKeyString: region.spanLatitude,
            UserActivity.regionSpanLongitudeKeyString: region.spanLongitude]
        addUserInfoEntries(from: updateDict)
    }

    /// "Update the App's State": the region back from `userInfo`, if it is all there.
    func viewingRegion() -> MapRegion? {
        guard let centerLatitude = userInfo?[UserActivity.regionCenterLatitudeKeyString] as? Double,
              let centerLongitude = userInfo?[UserActivity.regionCenterLongitudeKeyString] as? Double,
              let spanLatitude = userInfo?[UserActivity.regionSpanLatitudeKeyString] as? Double,
              let spanLongitude = userInfo?[UserActivity.regionSpanLongitudeKeyString] as? Double else {
            return nil
        }
        return MapRegion(centerLatitude: centerLatitude, centerLongitude: centerLongitude,
                         spanLatitude: spanLatitude, spanLongitude: spanLongitude)
    }
}
