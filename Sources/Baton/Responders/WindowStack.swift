/// The visible windows, front to back. Bringing a window to the front or the back and taking
/// one out are O(1), so window changes cost the same among ten windows or ten thousand.
@MainActor
struct WindowStack {
    private final class Node {
        let window: Window
        var behind: Node?
        weak var inFront: Node?
        init(_ window: Window) { self.window = window }
    }

    private var front: Node?
    private weak var back: Node?
    private var nodes: [ObjectIdentifier: Node] = [:]

    /// Puts `window` in front of every other, adding it if it was not in the stack.
    mutating func bringToFront(_ window: Window) {
        let node = takeOut(window)
        node.behind = front
        front?.inFront = node
        front = node
        if back == nil { back = node }
    }

    /// Puts `window` behind every other, adding it if it was not in the stack.
    mutating func sendToBack(_ window: Window) {
        let node = takeOut(window)
        node.inFront = back
        back?.behind = node
        back = node
        if front == nil { front = node }
    }

    /// Takes `window` out of the stack.
    mutating func remove(_ window: Window) { _ = detach(window) }

    /// The frontmost window that satisfies `predicate`.
    func first(where predicate: (Window) -> Bool) -> Window? {
        var node = front
        while let current = node {
            if predicate(current.window) { return current.window }
            node = current.behind
        }
        return nil
    }

    /// All the windows, front to back.
    var windows: [Window] {
        var result: [Window] = []
        var node = front
        while let current = node {
            result.append(current.window)
            node = current.behind
        }
        return result
    }

    /// `window`'s node, out of its place (a new one if it was not in the stack), to be put back
    /// at the front or the back.
    private mutating func takeOut(_ window: Window) -> Node {
        let node = detach(window) ?? Node(window)
        nodes[ObjectIdentifier(window)] = node
        return node
    }

    private mutating func detach(_ window: Window) -> Node? {
        guard let node = nodes.removeValue(forKey: ObjectIdentifier(window)) else { return nil }
        if front === node { front = node.behind }
        if back === node { back = node.inFront }
        node.inFront?.behind = node.behind
        node.behind?.inFront = node.inFront
        node.behind = nil
        node.inFront = nil
        return node
    }
}
