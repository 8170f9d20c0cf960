// BatonGtk where GTK 4's development files are not installed (or `BATON_WITHOUT_GTK=1` left it
// out): the product is still there, so a package that depends on it resolves, but the module is
// empty, and this one warning — shown when the app builds — says what to install.
#warning("BatonGtk is empty: GTK 4's development files are not installed. Install them (Debian: sudo apt-get install libgtk-4-dev), then build again.")
