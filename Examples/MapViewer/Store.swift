import Foundation

/// An Apple Store location on the map, which the user can mark as a favorite.
struct Store: Equatable {
    var name: String
    var url: URL
    var latitude: Double
    var longitude: Double

    static let all = [
        Store(name: "Apple Park Visitor Center", url: URL(string: "https://www.apple.com/retail/appleparkvisitorcenter/")!,
              latitude: 37.3327, longitude: -122.0053),
        Store(name: "Apple Union Square", url: URL(string: "https://www.apple.com/retail/unionsquare/")!,
              latitude: 37.7887, longitude: -122.4075),
        Store(name: "Apple Fifth Avenue", url: URL(string: "https://www.apple.com/retail/fifthavenue/")!,
              latitude: 40.7637, longitude: -73.9727),
    ]

    static func named(_ name: String) -> Store? { all.first { $0.name == name } }
    static func at(_ url: URL) -> Store? { all.first { $0.url == url } }
}
