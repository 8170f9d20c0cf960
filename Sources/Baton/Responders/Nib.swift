/// AppKit's `NSNib`, for its name type only: Baton loads no nib files, but
/// `ViewController.init(nibName:bundle:)` and `WindowController.windowNibName` keep AppKit's
/// `NSNib.Name` parameter type, so code written with it ports by renaming.
public enum Nib {
    /// The name of a nib file (`NSNib.Name`), a `String` as in AppKit.
    public typealias Name = String
}
