import Foundation

/// A view's coordinates, AppKit's rules written down once:
///
/// - A view's `frame` is in its superview's coordinates; a content view's (or a view with no
///   superview's) is in its window's base coordinates, whose origin is the bottom-left corner
///   and whose y axis goes up.
/// - Inside a view, points are in `bounds` coordinates: the origin is `bounds.origin`; y goes up
///   from the bottom edge, or down from the top edge when the view `isFlipped`.
/// - A frame's `minY` edge is its bottom in an unflipped superview and its top in a flipped one,
///   so a point's distance from that edge is kept when its view is flipped the same way as the
///   superview, and mirrored within the height when it is not.
/// - `hitTest(_:)` takes a point in the superview's coordinates; a point is in a frame when
///   `minX <= x < maxX` and, in an unflipped superview, `minY < y <= maxY` (flipped:
///   `minY <= y < maxY`), as AppKit's `NSMouseInRect` counts edges.
extension View {
    /// Converts `point` from `view`'s coordinates to this view's (`convert(_:from:)`); nil
    /// `view` means the window's base coordinates.
    public func convert(_ point: CGPoint, from view: View?) -> CGPoint {
        convertFromBase(view?.convertToBase(point) ?? point)
    }

    /// Converts `point` from this view's coordinates to `view`'s (`convert(_:to:)`); nil `view`
    /// means the window's base coordinates.
    public func convert(_ point: CGPoint, to view: View?) -> CGPoint {
        let base = convertToBase(point)
        return view?.convertFromBase(base) ?? base
    }

    /// Whether the coordinates `frame` is in are flipped: the superview's; a window's base
    /// coordinates are not.
    private var superviewIsFlipped: Bool { superview?.isFlipped ?? false }

    /// A point of `bounds` in the coordinates of the superview (or of the window).
    func convertToSuperview(_ point: CGPoint) -> CGPoint {
        let inBounds = CGPoint(x: point.x - bounds.minX, y: point.y - bounds.minY)
        let fromMinYEdge = isFlipped == superviewIsFlipped ? inBounds.y : bounds.height - inBounds.y
        return CGPoint(x: frame.minX + inBounds.x, y: frame.minY + fromMinYEdge)
    }

    /// A point of the superview's (or window's) coordinates in this view's `bounds` coordinates.
    func convertFromSuperview(_ point: CGPoint) -> CGPoint {
        let fromMinYEdge = point.y - frame.minY
        let y = isFlipped == superviewIsFlipped ? fromMinYEdge : bounds.height - fromMinYEdge
        return CGPoint(x: point.x - frame.minX + bounds.minX, y: y + bounds.minY)
    }

    /// A point of this view's coordinates in the window's base coordinates (the coordinates of
    /// the top of the view hierarchy).
    func convertToBase(_ point: CGPoint) -> CGPoint {
        var converted = point
        var current: View? = self
        while let view = current {
            converted = view.convertToSuperview(converted)
            current = view.superview
        }
        return converted
    }

    /// A point of the window's base coordinates in this view's coordinates.
    func convertFromBase(_ point: CGPoint) -> CGPoint {
        var chain: [View] = []
        var current: View? = self
        while let view = current {
            chain.append(view)
            current = view.superview
        }
        return chain.reversed().reduce(point) { $1.convertFromSuperview($0) }
    }

    /// Whether `point`, in the superview's coordinates, is inside `frame` (`NSMouseInRect`).
    func frameContains(_ point: CGPoint) -> Bool {
        guard point.x >= frame.minX, point.x < frame.maxX else { return false }
        return superviewIsFlipped ? point.y >= frame.minY && point.y < frame.maxY
                                  : point.y > frame.minY && point.y <= frame.maxY
    }

    /// `hitTest(_:)`'s default: this view, or the deepest frontmost subview, containing `point`.
    func defaultHitTest(_ point: CGPoint) -> View? {
        guard !isHidden, frameContains(point) else { return nil }
        let local = convertFromSuperview(point)
        for subview in subviews.reversed() {
            if let hit = subview.hitTest(local) { return hit }
        }
        return self
    }
}
