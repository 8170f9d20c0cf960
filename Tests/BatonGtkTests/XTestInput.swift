#if canImport(BatonGtk)
import Foundation
import XCTest

/// A person's pointer and keyboard on a test's virtual display, from the test process: X's
/// test extension (XTest) on a connection of our own, so the app under test reads the clicks
/// and key presses from the X server as it reads a person's. libX11 and libXtst are looked up
/// at run time (no X development headers needed). Closed when released.
final class XTestInput {
    private typealias OpenDisplay = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias CloseDisplay = @convention(c) (OpaquePointer?) -> Int32
    private typealias FakeKey = @convention(c) (OpaquePointer?, UInt32, Int32, UInt) -> Int32
    private typealias FakeButton = @convention(c) (OpaquePointer?, UInt32, Int32, UInt) -> Int32
    private typealias Warp = @convention(c) (OpaquePointer?, UInt, UInt, Int32, Int32, UInt32, UInt32, Int32, Int32) -> Int32
    private typealias Sync = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias KeysymToKeycode = @convention(c) (OpaquePointer?, UInt) -> UInt8

    private let display: OpaquePointer
    private let x11: UnsafeMutableRawPointer
    private let xtst: UnsafeMutableRawPointer

    /// A connection to the X display `name` (`:99`); skips the test when libXtst is missing.
    init(display name: String) throws {
        guard let x11 = dlopen("libX11.so.6", RTLD_NOW), let xtst = dlopen("libXtst.so.6", RTLD_NOW) else {
            throw XCTSkip("no XTest: libX11.so.6 or libXtst.so.6 is not installed (Debian package libxtst6)")
        }
        (self.x11, self.xtst) = (x11, xtst)
        let open = unsafeBitCast(dlsym(x11, "XOpenDisplay"), to: OpenDisplay.self)
        display = try XCTUnwrap(open(name), "cannot open X display \(name)")
    }

    deinit {
        _ = unsafeBitCast(dlsym(x11, "XCloseDisplay"), to: CloseDisplay.self)(display)
    }

    private func function<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) -> T {
        guard let found = dlsym(library, name) else { fatalError("no \(name)") }
        return unsafeBitCast(found, to: type)
    }

    /// Sends what was queued and waits until the server has handled it.
    private func sync() { _ = function(x11, "XSync", as: Sync.self)(display, 0) }

    /// Moves the pointer to `x`, `y` in X window `window`.
    func movePointer(to x: Int, _ y: Int, in window: UInt) {
        _ = function(x11, "XWarpPointer", as: Warp.self)(display, 0, window, 0, 0, 0, 0, Int32(x), Int32(y))
        sync()
    }

    /// Presses (`down`) or releases pointer button `number` (1 the first).
    func button(_ number: UInt32, down: Bool) {
        _ = function(xtst, "XTestFakeButtonEvent", as: FakeButton.self)(display, number, down ? 1 : 0, 0)
        sync()
    }

    /// Presses and releases the key of X keysym `keysym` (`0xff53` Right), with the keys of
    /// `holding` (`0xffe3` Control_L) held around it.
    func press(_ keysym: UInt, holding: [UInt] = []) {
        let keycode = function(x11, "XKeysymToKeycode", as: KeysymToKeycode.self)
        let fake = function(xtst, "XTestFakeKeyEvent", as: FakeKey.self)
        for key in holding { _ = fake(display, UInt32(keycode(display, key)), 1, 0) }
        _ = fake(display, UInt32(keycode(display, keysym)), 1, 0)
        _ = fake(display, UInt32(keycode(display, keysym)), 0, 0)
        for key in holding.reversed() { _ = fake(display, UInt32(keycode(display, key)), 0, 0) }
        sync()
    }
}
#endif
