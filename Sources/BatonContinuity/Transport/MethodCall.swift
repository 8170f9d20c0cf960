import BatonLoop

/// One incoming method call on a `DBusConnection`; answered exactly once (`reply` or `fail`).
/// A call dropped unanswered is answered with an error when it goes (the connection's
/// `fallbackErrorName`), so the caller never waits for nothing. Services answer through
/// `DBusAnswer`, typed by their interface's declarations; the untyped `reply` and `fail` are
/// this module's (the engine's and `DBusAnswer`'s).
@MainActor
package final class MethodCall {
    /// What a call is answered with: its return values, or a D-Bus error's name and words.
    package enum Answer {
        case values([Variant])
        case error(String, String)
    }

    package let method: String
    package let arguments: [Variant]
    private let unansweredErrorName: String
    private var answer: (@MainActor (Answer) -> Void)?

    package init(method: String, arguments: [Variant], unansweredErrorName: String,
                 answer: @escaping @MainActor (Answer) -> Void) {
        self.method = method
        self.arguments = arguments
        self.unansweredErrorName = unansweredErrorName
        self.answer = answer
    }

    isolated deinit { answer?(.error(unansweredErrorName, "not answered")) }

    func reply(_ values: [Variant]) {
        guard let answer else { return }
        self.answer = nil
        answer(.values(values))
    }

    func fail(_ name: String, _ message: String) {
        guard let answer else { return }
        self.answer = nil
        answer(.error(name, message))
    }
}
