import Baton
import BatonLoop
import Foundation

/// A call of a declared method together with the type of its reply: `bus.call(.getRevocations)`
/// gives `Data`, `bus.call(.continued(sequence: 7))` nothing. Each interface declares its calls
/// as static members of the `DBusCall`s of its methods, so a misspelt method, a wrong argument
/// or a reply taken as the wrong type does not compile. The same declaration gives the callee
/// its reply's values (`DBusAnswer.reply(_:_:)`), so both sides read and write one shape.
package struct DBusCall<Method: DBusMessageValue, Reply> {
    package let method: Method
    /// The reply read from its values (which are of the declared types); nil if it breaks the
    /// interface's rules (the call then fails with `DBusMessageMismatch`).
    package let reply: ([Variant]) -> Reply?
    /// The reply's values as the callee sends them; nil for a declaration of the caller's side only.
    package let values: ((Reply) -> [Variant])?

    package init(_ method: Method, reply: @escaping ([Variant]) -> Reply?, values: ((Reply) -> [Variant])? = nil) {
        self.method = method
        self.reply = reply
        self.values = values
    }

    /// A call whose reply is one value, read by `value` and (on the callee's side) written by `written`.
    package init(_ method: Method, one value: @escaping (Variant) -> Reply?, as written: ((Reply) -> Variant)? = nil) {
        self.init(method, reply: { values in values.count == 1 ? value(values[0]) : nil }, values: written.map { write in { [write($0)] } })
    }
}

extension DBusCall where Reply == Void {
    /// A call with an empty reply.
    package init(_ method: Method) {
        self.init(method, reply: { _ in () }, values: { _ in [] })
    }
}

extension DBusMessageMismatch: HandoffCoded {
    /// A call or reply not of its interface's shape: the other side broke the protocol.
    package var handoffCode: CocoaError.Code { .userActivityHandoffFailed }
}

extension DBusConnection {
    /// Makes `call`; returns its reply, read into its declared type. Fails as
    /// `call(_:_:_:_:replyType:timeout:)` does, and with `DBusMessageMismatch` for a reply the
    /// declaration does not take.
    package func call<Method, Reply>(_ call: DBusCall<Method, Reply>, timeout: Duration) async throws -> Reply {
        let values = try await self.call(call.method, timeout: timeout)
        guard let reply = call.reply(values) else {
            throw DBusMessageMismatch(description: "the \(call.method.member.rawValue) reply is not \(call.method.member.replyType)")
        }
        return reply
    }
}

/// Reading one value of a reply.
extension Variant {
    package var bytesValue: Data? { if case .bytes(let data) = self { data } else { nil } }
    package var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    package var uint32Value: UInt32? { if case .uint32(let value) = self { value } else { nil } }
}
