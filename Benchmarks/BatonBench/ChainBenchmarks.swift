import Baton

@MainActor protocol Pinging { func ping(_ sender: Any?) }
extension Action where Handler == any Pinging {
    static let ping = Action("ping") { $0.ping($1) }
}

/// The handler at the top of the chain: the window controller.
final class PingingController: WindowController, Pinging {
    var pings = 0
    func ping(_ sender: Any?) { pings += 1 }
}


/// Layer 2: actions and first-responder resolution through a 100-deep chain.
@MainActor
enum ChainBenchmarks {
    final class FocusableView: View {
        override var acceptsFirstResponder: Bool { true }
    }

    static let depth = 100
    static let sends = 20_000

    static func makeDeepWindow() -> (Window, PingingController) {
        let window = Window(title: "deep")
        let controller = PingingController(window: window)
        let root = View()
        var parent = root
        for _ in 1..<depth - 2 {  // + window + controller = depth
            let child = FocusableView()
            parent.addSubview(child)
            parent = child
        }
        window.contentView = root
        window.makeKeyAndOrderFront(nil)
        Application.shared.activate()
        window.makeFirstResponder(parent)
        return (window, controller)
    }

    /// `Application.sendAction(_:to: nil, from:)` from the deepest view to the controller.
    static func dispatch() -> Double {
        let (window, controller) = makeDeepWindow()
        defer { window.close() }
        let start = ContinuousClock.now
        for _ in 0..<sends { Application.shared.sendAction(.ping, to: nil, from: nil) }
        precondition(controller.pings == sends)
        return nanosPerOp(ContinuousClock.now - start, sends)
    }

    /// `Application.target(forAction:)`: finding the responder, without sending.
    static func resolution() -> Double {
        let (window, controller) = makeDeepWindow()
        defer { window.close() }
        let start = ContinuousClock.now
        for _ in 0..<sends { precondition(Application.shared.target(forAction: Action.ping) === controller) }
        return nanosPerOp(ContinuousClock.now - start, sends)
    }

    /// The floor: a hand-written walk of the same `nextResponder` links with the same cast.
    static func handWalk() -> Double {
        let (window, controller) = makeDeepWindow()
        defer { window.close() }
        let first = window.firstResponder!
        let start = ContinuousClock.now
        for _ in 0..<sends {
            var current: Responder? = first
            while let r = current, !(r is any Pinging) { current = r.nextResponder }
            precondition(current === controller)
        }
        return nanosPerOp(ContinuousClock.now - start, sends)
    }
}
