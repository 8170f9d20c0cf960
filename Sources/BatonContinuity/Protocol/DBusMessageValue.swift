import BatonLoop
import Foundation

/// A call (or a signal) of a declared interface with its arguments: what a caller makes and a
/// callee reads back (`init(member:arguments:)`).
package protocol DBusMessageValue: Sendable {
    associatedtype Member: DBusMember
    /// The interface's name, e.g. `org.baton.Device1`.
    static var interface: String { get }
    /// The path its object is served at.
    static var path: String { get }
    var member: Member { get }
    /// The arguments, in the order and of the types `member` declares.
    var arguments: [Variant] { get }
    /// The value of `member` with `arguments`, which are of the declared types (checked by
    /// `init(_:arguments:)` first).
    init?(checked member: Member, arguments: [Variant])
}

/// Why a call or signal is not one its interface declares.
package struct DBusMessageMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
}

extension DBusMessageValue {
    /// The value of the member called `name` with `arguments`; a name the interface does not
    /// declare, or arguments not of its declared types, are refused, naming what was wrong.
    package init(name: String, arguments: [Variant]) throws(DBusMessageMismatch) {
        guard let member = Member(rawValue: name) else { throw DBusMessageMismatch(description: "\(Self.interface) has no \(name)") }
        try self.init(member, arguments: arguments)
    }

    /// The value of `member` with `arguments`, refused if they are not of its declared types.
    package init(_ member: Member, arguments: [Variant]) throws(DBusMessageMismatch) {
        let declared = member.inArguments
        // Compared type by type: a tuple's type string is made only to word a refusal.
        guard arguments.count == declared.count, zip(arguments, declared).allSatisfy({ $0.typeString == $1.type }),
              let value = Self(checked: member, arguments: arguments) else {
            let given = "(" + arguments.map(\.typeString).joined() + ")"
            throw DBusMessageMismatch(description: "\(member.rawValue) takes \(member.argumentType), not \(given)")
        }
        self = value
    }

    /// The method of an incoming call.
    package init(_ call: MethodCall) throws(DBusMessageMismatch) {
        try self.init(name: call.method, arguments: call.arguments)
    }
}

extension DBusConnection {
    /// Calls `method`; returns the reply's values, of the types `method` declares (a reply of
    /// another type fails with `G_IO_ERROR_INVALID_ARGUMENT`; see `call(_:_:_:_:replyType:timeout:)`).
    package func call<Method: DBusMessageValue>(_ method: Method, timeout: Duration) async throws -> [Variant] {
        try await call(Method.path, Method.interface, method.member.rawValue, method.arguments,
                       replyType: method.member.replyType, timeout: timeout)
    }

    /// Calls `method` without asking for a reply (see `send(_:_:_:_:)`).
    package func send<Method: DBusMessageValue>(_ method: Method) throws {
        try send(Method.path, Method.interface, method.member.rawValue, method.arguments)
    }

    /// Emits `signal`.
    package func emit<Signal: DBusMessageValue>(_ signal: Signal) {
        emit(Signal.path, Signal.interface, signal.member.rawValue, signal.arguments)
    }

    /// Calls `body` with each `member` signal the other side emits, read into its declaration;
    /// one whose arguments are not of the declared types calls `malformed` instead.
    @discardableResult
    package func subscribe<Signal: DBusMessageValue>(_ member: Signal.Member, _ body: @escaping @MainActor (Signal) -> Void,
                                                     malformed: @escaping @MainActor () -> Void = {}) -> UInt32 {
        subscribe(Signal.path, Signal.interface, member.rawValue) { items in
            do { body(try Signal(member, arguments: items)) } catch { malformed() }
        }
    }
}
