import Foundation

/// Reads fields from bytes, never past their end.
struct ByteReader {
    private let data: Data
    private(set) var offset = 0

    init(_ data: Data) { self.data = Data(data) }

    var isAtEnd: Bool { offset == data.count }

    mutating func bytes(_ count: Int) -> Data? {
        guard count >= 0, data.count - offset >= count else { return nil }
        defer { offset += count }
        return data.subdata(in: offset..<(offset + count))
    }

    mutating func byte() -> UInt8? { bytes(1)?.first }

    mutating func uint16() -> UInt16? { bytes(2).map { $0.reduce(0) { $0 << 8 | UInt16($1) } } }

    mutating func uint32() -> UInt32? { bytes(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } } }

    mutating func uint64() -> UInt64? { bytes(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } } }

    mutating func string(maxBytes: Int) -> String? {
        guard let length = uint16(), Int(length) <= maxBytes, let bytes = bytes(Int(length)) else { return nil }
        return String(data: bytes, encoding: .utf8)
    }
}
