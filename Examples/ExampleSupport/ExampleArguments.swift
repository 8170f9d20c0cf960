import Baton
import Foundation

/// The value after `flag` on the command line; nil if `flag` is not there. A flag given as
/// the last argument, without its value, ends the process (`ExampleArguments.refuse`).
public func value(after flag: String, in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String? {
    guard arguments.contains(flag) else { return nil }
    do { return try ExampleArguments.required(after: flag, in: arguments) } catch { ExampleArguments.refuse("\(error)") }
}

/// The number after `flag` on the command line; nil if `flag` is not there. A value that is
/// not a number ends the process with a message naming it.
public func number<Number: LosslessStringConvertible>(after flag: String, as type: Number.Type = Number.self,
                                                      in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Number? {
    guard let text = value(after: flag, in: arguments) else { return nil }
    guard let number = Number(text) else { ExampleArguments.refuse("\(flag) takes a number, not '\(PrintableText.escaped(text))'") }
    return number
}

/// Reading the examples' command lines, where a bad value is refused, never guessed around.
public enum ExampleArguments {
    /// An option without its value.
    public struct MissingValue: Error, CustomStringConvertible {
        public let flag: String
        public var description: String { "\(flag) needs a value" }
    }

    /// The value after `flag`; throws if `flag` is the last argument.
    public static func required(after flag: String, in arguments: [String]) throws -> String {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { throw MissingValue(flag: flag) }
        return arguments[index + 1]
    }

    /// Says `message` on standard error and ends the process with status 2.
    public static func refuse(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(2)
    }
}
