import Foundation

/// How inspections are written as JSON and read back (`baton inspect --json`, the agent's
/// `Inspect` call, docs/INSPECT.md): keys sorted, dates in ISO 8601 with fractional seconds,
/// URLs as strings.
public enum InspectionJSON {
    /// An encoder with these settings (`pretty`: indented, for people).
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        }
        return encoder
    }

    /// A decoder with these settings.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let strategy = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            if let date = try? strategy.parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return decoder
    }
}
