import BatonLoop

/// One incoming method call on an app's connection to the agent (`LocalBus`); answered
/// exactly once (`reply` or `fail`). A call dropped unanswered is answered with an error when
/// it goes, so the caller never waits for nothing.
@MainActor
final class MethodCall {
    /// What a call is answered with: its return values, or a D-Bus error's name and words.
    enum Answer {
        case values([Variant])
        case error(String, String)
    }

    let method: String
    let arguments: [Variant]
    private var answer: (@MainActor (Answer) -> Void)?

    init(method: String, arguments: [Variant], answer: @escaping @MainActor (Answer) -> Void) {
        self.method = method
        self.arguments = arguments
        self.answer = answer
    }

    isolated deinit { answer?(.error(AgentInterface.ErrorName.handoffFailed, "not answered")) }

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
