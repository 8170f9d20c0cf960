import CGLib

/// The names and types of a D-Bus interface's methods and signals, as GLib parsed them: two
/// interfaces with equal shapes are the same on the wire (argument names aside).
public struct DBusInterfaceShape: Equatable, CustomStringConvertible {
    public var name: String
    /// Each method's argument and reply types, e.g. `["(t)", "(ay)"]`.
    public var methods: [String: [String]] = [:]
    /// Each signal's argument types.
    public var signals: [String: String] = [:]

    public init(_ info: UnsafeMutablePointer<GDBusInterfaceInfo>) {
        func arguments(_ list: UnsafeMutablePointer<UnsafeMutablePointer<GDBusArgInfo>?>?) -> String {
            var types = "", index = 0
            while let argument = list?[index] {
                types += String(cString: argument.pointee.signature)
                index += 1
            }
            return "(" + types + ")"
        }
        name = String(cString: info.pointee.name)
        var index = 0
        while let method = info.pointee.methods?[index] {
            methods[String(cString: method.pointee.name)] = [arguments(method.pointee.in_args), arguments(method.pointee.out_args)]
            index += 1
        }
        index = 0
        while let signal = info.pointee.signals?[index] {
            signals[String(cString: signal.pointee.name)] = arguments(signal.pointee.args)
            index += 1
        }
    }

    public var description: String { "\(name): methods \(methods.sorted { $0.key < $1.key }), signals \(signals.sorted { $0.key < $1.key })" }
}
