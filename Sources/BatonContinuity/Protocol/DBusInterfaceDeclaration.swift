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
