import Baton
import BatonLoop

/// A declared interface's methods as the callee answers them: with the errors it may answer,
/// its one list of error names (`HandoffFailure`'s, the one map of error names and Handoff codes).
package protocol DBusMethodValue: DBusMessageValue {
    associatedtype ErrorName: RawRepresentable<String>
}

/// The callee's side of one call of `Method`'s interface: answered exactly once, with the reply
/// the method's declaration (`DBusCall`) gives, of its declared type, or with one of the
/// interface's error names. So a reply of the wrong type or an error name of another interface
/// does not compile. (`MethodCall` takes only values and strings; nothing outside this module
/// answers through it.)
@MainActor
package struct DBusAnswer<Method: DBusMethodValue> {
    private let call: MethodCall

    /// Answers `call`, a call of `Method`'s interface.
    package init(_ call: MethodCall) { self.call = call }

    /// The method called with its arguments, or why they are not what the interface declares.
    package func method() throws(DBusMessageMismatch) -> Method { try Method(name: call.method, arguments: call.arguments) }

    /// Answers with `value`, the reply `declared` gives; `declared` is the declaration of the
    /// method called.
    package func reply<Reply>(_ declared: DBusCall<Method, Reply>, _ value: Reply) {
        assert(declared.method.member.rawValue == call.method, "a \(declared.method.member.rawValue) reply to \(call.method)")
        guard let values = declared.values else {
            return call.fail("org.freedesktop.DBus.Error.Failed", "\(declared.method.member.rawValue) declares no reply values")
        }
        call.reply(values(value))
    }

    /// Answers with the interface's error `name` and `message` (words for people and logs).
    package func fail(_ name: Method.ErrorName, _ message: String) {
        call.fail(name.rawValue, message)
    }
}
