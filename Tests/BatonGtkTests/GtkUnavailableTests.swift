import XCTest

#if !canImport(BatonGtk)
/// Stands for BatonGtk's tests where the package was built without GTK 4 (its development
/// files, Debian's libgtk-4-dev, were not installed): they are skipped, saying why.
final class GtkUnavailableTests: XCTestCase {
    func testGtkTestsNeedGtk4() throws {
        throw XCTSkip("BatonGtk is not built: GTK 4's development files (/usr/include/gtk-4.0, Debian package libgtk-4-dev) are not installed (scripts/install-deps.sh installs them), or BATON_WITHOUT_GTK=1 left it out")
    }
}
#endif
