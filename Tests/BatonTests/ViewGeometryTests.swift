@testable import Baton
import Foundation
import XCTest

final class FlippedView: View {
    override var isFlipped: Bool { true }
}

/// NSView's geometry: frame and bounds ("View Programming Guide", "Understanding View
/// Geometry"), isFlipped (https://developer.apple.com/documentation/appkit/nsview/isflipped),
/// convert(_:from:) / convert(_:to:), hitTest(_:) (https://developer.apple.com/documentation/appkit/nsview/hittest(_:)).
final class ViewGeometryTests: BatonTestCase {
    func testFrameAndBoundsAndTheDefaultIsNotFlipped() {
        MainActor.assumeIsolated {
            let view = View(frame: CGRect(x: 10, y: 20, width: 100, height: 50))
            XCTAssertEqual(view.bounds, CGRect(x: 0, y: 0, width: 100, height: 50))
            XCTAssertFalse(view.isFlipped, "NSView's default")
            view.frame.size = CGSize(width: 30, height: 40)
            XCTAssertEqual(view.bounds.size, CGSize(width: 30, height: 40), "bounds follow the frame's size")
            view.bounds.origin = CGPoint(x: 5, y: 5)
            XCTAssertEqual(view.frame.origin, CGPoint(x: 10, y: 20), "the frame does not move")
        }
    }

    func testConvertingPointsThroughUnflippedAndFlippedViews() {
        MainActor.assumeIsolated {
            let root = View(frame: CGRect(x: 0, y: 0, width: 200, height: 100))
            let child = View(frame: CGRect(x: 10, y: 20, width: 50, height: 40))
            let flipped = FlippedView(frame: CGRect(x: 100, y: 10, width: 80, height: 60))
            let inFlipped = View(frame: CGRect(x: 5, y: 5, width: 20, height: 10))
            root.addSubview(child)
            root.addSubview(flipped)
            flipped.addSubview(inFlipped)
            XCTAssertEqual(child.convert(CGPoint(x: 1, y: 2), to: nil), CGPoint(x: 11, y: 22))
            XCTAssertEqual(child.convert(CGPoint(x: 11, y: 22), from: nil), CGPoint(x: 1, y: 2))
            // A flipped view's y goes down from its top edge: its top is at 10 + 60 = 70.
            XCTAssertEqual(flipped.convert(CGPoint(x: 0, y: 0), to: root), CGPoint(x: 100, y: 70))
            XCTAssertEqual(flipped.convert(CGPoint(x: 0, y: 60), to: root), CGPoint(x: 100, y: 10))
            // In a flipped superview a frame's origin is its top-left corner; an unflipped child's
            // bottom (y 0) is at the frame's maxY.
            XCTAssertEqual(inFlipped.convert(CGPoint(x: 0, y: 0), to: flipped), CGPoint(x: 5, y: 15))
            XCTAssertEqual(inFlipped.convert(CGPoint(x: 0, y: 0), to: root), CGPoint(x: 105, y: 55))
            XCTAssertEqual(root.convert(CGPoint(x: 105, y: 55), to: inFlipped), CGPoint(x: 0, y: 0))
            XCTAssertEqual(child.convert(CGPoint(x: 3, y: 4), to: inFlipped),
                           inFlipped.convert(child.convert(CGPoint(x: 3, y: 4), to: nil), from: nil))
            child.bounds.origin = CGPoint(x: 100, y: 100)
            XCTAssertEqual(child.convert(CGPoint(x: 100, y: 100), to: root), CGPoint(x: 10, y: 20),
                           "the bounds origin is the frame's corner")
        }
    }

    func testHitTestFindsTheDeepestFrontmostViewInSuperviewCoordinates() {
        MainActor.assumeIsolated {
            let root = View(frame: CGRect(x: 50, y: 50, width: 200, height: 100))
            let back = View(frame: CGRect(x: 0, y: 0, width: 100, height: 100))
            let front = View(frame: CGRect(x: 50, y: 0, width: 100, height: 100))
            let deep = View(frame: CGRect(x: 10, y: 10, width: 10, height: 10))
            root.addSubview(back)
            root.addSubview(front)
            front.addSubview(deep)
            XCTAssertTrue(root.hitTest(CGPoint(x: 60, y: 60)) === back, "root's point is in its superview's coordinates")
            XCTAssertTrue(root.hitTest(CGPoint(x: 120, y: 60)) === front, "the frontmost of two overlapping views")
            XCTAssertTrue(root.hitTest(CGPoint(x: 115, y: 65)) === deep)
            XCTAssertTrue(root.hitTest(CGPoint(x: 240, y: 60)) === root)
            XCTAssertNil(root.hitTest(CGPoint(x: 10, y: 10)), "outside the frame")
            front.isHidden = true
            XCTAssertTrue(root.hitTest(CGPoint(x: 115, y: 65)) === back, "a hidden view and its subviews are skipped")
        }
    }

    func testHitTestInAFlippedView() {
        MainActor.assumeIsolated {
            let root = FlippedView(frame: CGRect(x: 0, y: 0, width: 100, height: 100))
            let top = View(frame: CGRect(x: 0, y: 0, width: 100, height: 10))
            root.addSubview(top)
            // Window coordinates: y 95 is near the top of the unflipped window, so near the top of root.
            XCTAssertTrue(root.hitTest(CGPoint(x: 5, y: 95)) === top)
            XCTAssertTrue(root.hitTest(CGPoint(x: 5, y: 5)) === root)
        }
    }

    /// acceptsFirstMouse(for:): "The default implementation returns false."
    func testAcceptsFirstMouseIsFalseByDefault() {
        MainActor.assumeIsolated {
            XCTAssertFalse(View().acceptsFirstMouse(for: nil))
        }
    }
}
