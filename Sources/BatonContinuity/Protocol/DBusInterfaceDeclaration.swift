import Baton
import BatonLoop
import CGLib
import Foundation

/// One argument of a D-Bus method or signal: its name and its GVariant type.
package struct DBusArgument: Sendable, Equatable {
    package let name: String
    package let type: String

    package init(_ name: String, _ type: String) {
        self.name = name
        self.type = type
    }
}

/// The methods (or the signals) of a D-Bus interface declared in Swift: one case each, its
/// D-Bus name the raw value, with its arguments. The interface's introspection XML, which the
/// D-Bus engine checks every incoming call against, is made from it (`DBusInterfaceDeclaration`),
/// so the two cannot disagree.
package protocol DBusMember: RawRepresentable<String>, CaseIterable, Sendable {
    /// The arguments a call takes (a signal's arguments).
    var inArguments: [DBusArgument] { get }
    /// The values a call's reply carries (none for a signal).
    var outArguments: [DBusArgument] { get }
}

extension DBusMember {
    package var outArguments: [DBusArgument] { [] }
    /// The tuple type of the call's arguments, e.g. `(t)`.
    package var argumentType: String { "(" + inArguments.map(\.type).joined() + ")" }
    /// The tuple type of the call's reply, e.g. `(ay)`.
    package var replyType: String { "(" + outArguments.map(\.type).joined() + ")" }
}

/// A D-Bus interface made from its Swift declaration: its name, its methods and signals.
package enum DBusInterfaceDeclaration {
    /// The introspection XML of interface `name` with `methods` and `signals`.
    package static func xml<Method: DBusMember, Signal: DBusMember>(name: String, methods: Method.Type, signals: Signal.Type) -> String {
        func arguments(_ list: [DBusArgument], direction: String?) -> String {
            list.map { argument in
                let direction = direction.map { " direction=\"\($0)\"" } ?? ""
                return "<arg name=\"\(argument.name)\" type=\"\(argument.type)\"\(direction)/>"
            }.joined()
        }
        var lines = ["<node>", "  <interface name=\"\(name)\">"]
        for method in Method.allCases {
            let body = arguments(method.inArguments, direction: "in") + arguments(method.outArguments, direction: "out")
            lines.append("    <method name=\"\(method.rawValue)\">\(body)</method>")
        }
        for signal in Signal.allCases {
            lines.append("    <signal name=\"\(signal.rawValue)\">\(arguments(signal.inArguments, direction: nil))</signal>")
        }
        lines += ["  </interface>", "</node>"]
        return lines.joined(separator: "\n")
    }

    /// The parsed interface of `xml` (one interface), kept for the process; a declaration that
    /// GLib does not take is a programming error.
    package static func info(_ xml: String) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error), let interface = node.pointee.interfaces[0] else {
            fatalError("Baton: a declared D-Bus interface does not parse: \(String(cString: error!.pointee.message))")
        }
        defer { g_dbus_node_info_unref(node) }  // the interface is kept by its own reference
        return g_dbus_interface_info_ref(interface)
    }
}

/// A declaration with no signals.
package struct NoSignals: DBusMember {
    package let rawValue: String
    package init?(rawValue: String) { nil }
    package static var allCases: [NoSignals] { [] }
    package var inArguments: [DBusArgument] { [] }
}

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
        let given = "(" + arguments.map(\.typeString).joined() + ")"
        guard given == member.argumentType, let value = Self(checked: member, arguments: arguments) else {
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

/// A call of a declared method together with the type of its reply: `bus.call(.getRevocations)`
/// gives `Data`, `bus.call(.continued(sequence: 7))` nothing. Each interface declares its calls
/// as static members of the `DBusCall`s of its methods, so a misspelt method, a wrong argument
/// or a reply taken as the wrong type does not compile.
package struct DBusCall<Method: DBusMessageValue, Reply> {
    package let method: Method
    /// The reply read from its values (which are of the declared types); nil if it breaks the
    /// interface's rules (the call then fails with `DBusMessageMismatch`).
    package let reply: ([Variant]) -> Reply?

    package init(_ method: Method, reply: @escaping ([Variant]) -> Reply?) {
        self.method = method
        self.reply = reply
    }

    /// A call whose reply is one value, read by `value`.
    package init(_ method: Method, one value: @escaping (Variant) -> Reply?) {
        self.init(method, reply: { values in values.count == 1 ? value(values[0]) : nil })
    }
}

extension DBusCall where Reply == Void {
    /// A call with an empty reply.
    package init(_ method: Method) {
        self.init(method, reply: { _ in () })
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
