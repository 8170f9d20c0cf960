import Baton

// AppKit's `NSWindowController.contentViewController`, which the macOS MapViewer listing reads.
// The "windows" part of issue 11 adds it to Baton's `WindowController`; until that is merged,
// this stand-in gives the listing what it reads. DELETE THIS FILE when WindowController has
// its own `contentViewController`.
extension WindowController {
    /// The window's content view controller.
    var contentViewController: ViewController? { window?.contentViewController }
}
