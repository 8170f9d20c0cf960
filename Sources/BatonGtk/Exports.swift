// `import BatonGtk` gives Baton and GTK 4's C API (CGtk) together, as `import AppKit` gives an
// app the framework and its toolkit.
@_exported import Baton
@_exported import CGtk
