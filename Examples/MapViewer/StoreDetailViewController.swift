import Baton

/// The sample's store popover: a store's details and its favorite mark, presented by the map
/// with `present(_:asPopoverRelativeTo:of:preferredEdge:behavior:)` and dismissed by Apple's
/// listing in `MapViewController.userActivityWasContinued(_:)`.
final class StoreDetailViewController: ViewController {
    let store: Store
    let favorite: Bool

    init(store: Store, favorite: Bool) {
        self.store = store
        self.favorite = favorite
        super.init(nibName: nil, bundle: nil)
        title = store.name
    }
}
