import Foundation

/// Reading a TLS ClientHello the listener peeked before its handshake, to refuse a client that
/// does not offer TLS 1.3 before it gets a byte of TLS, the certificate included.
///
/// A TLS 1.3 client says so in its `supported_versions` extension (RFC 8446 §4.2.1:
/// extension type 43, a one-byte length and a list of two-byte versions, 0x0304 among them);
/// the record's and the hello's own version fields stay at TLS 1.2 or lower for middleboxes
/// and say nothing. Every length is checked against what holds it before it is used, and the
/// whole hello must be in the one record (a client's first record; GnuTLS and OpenSSL send
/// it so).
enum ClientHello {
    /// The `supported_versions` extension's type.
    static let supportedVersions: UInt16 = 43
    /// TLS 1.3's version number.
    static let tls13: UInt16 = 0x0304
    /// The largest TLS record: 2^14 bytes of data plus 256 of expansion, and its header.
    static let maximumRecord = 5 + 16_384 + 256

    /// True if `record` (a whole TLS record: 5-byte header and body) holds a whole
    /// ClientHello whose `supported_versions` extension offers TLS 1.3.
    static func offersTLS13(_ record: [UInt8]) -> Bool {
        guard let versions = supportedVersionsOffered(in: record) else { return false }
        return versions.contains(tls13)
    }

    /// True if a whole ClientHello offering TLS 1.3 is already queued on `fd` (peeked, not
    /// read): a pairing client sends it as soon as it has connected, before it is accepted.
    static func isQueued(on fd: Int32) -> Bool {
        var bytes = [UInt8](repeating: 0, count: maximumRecord)
        let count = recv(fd, &bytes, bytes.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        guard count >= 5 else { return false }
        let record = 5 + (Int(bytes[3]) << 8 | Int(bytes[4]))
        return count >= record && offersTLS13(Array(bytes[..<record]))
    }

    /// The versions a ClientHello record's `supported_versions` extension lists; nil if the
    /// record is not a whole, well-formed ClientHello or has no such extension.
    static func supportedVersionsOffered(in record: [UInt8]) -> [UInt16]? {
        var reader = Reader(record)
        // The record: handshake (22), a version, and the body's length, which must be the rest.
        guard reader.byte() == 22, reader.skip(2), let recordLength = reader.uint16(), Int(recordLength) == reader.remaining,
              // The handshake: client_hello (1) and its 24-bit length, which must fit the record.
              reader.byte() == 1, let helloLength = reader.uint24(), helloLength <= reader.remaining else { return nil }
        var hello = Reader(reader.take(helloLength)!)
        // legacy_version, random, legacy_session_id <0..32>, cipher_suites <2..2^16-2>,
        // legacy_compression_methods <1..2^8-1>, then extensions <8..2^16-1>.
        guard hello.skip(2 + 32), let session = hello.byte(), session <= 32, hello.skip(Int(session)),
              let suites = hello.uint16(), suites >= 2, suites % 2 == 0, hello.skip(Int(suites)),
              let methods = hello.byte(), methods >= 1, hello.skip(Int(methods)),
              let extensionsLength = hello.uint16(), Int(extensionsLength) == hello.remaining else { return nil }
        var found: [UInt16]?
        while hello.remaining > 0 {
            guard let type = hello.uint16(), let length = hello.uint16(), let body = hello.take(Int(length)) else { return nil }
            guard type == supportedVersions else { continue }
            // Twice is out of protocol (RFC 8446 §4.2).
            guard found == nil else { return nil }
            var list = Reader(body)
            guard let count = list.byte(), count >= 2, count % 2 == 0, Int(count) == list.remaining else { return nil }
            var versions: [UInt16] = []
            while let version = list.uint16() { versions.append(version) }
            found = versions
        }
        return found
    }

    /// Reads big-endian fields off bytes, never past their end.
    private struct Reader {
        private let bytes: ArraySlice<UInt8>
        private var offset: Int

        init(_ bytes: some Collection<UInt8>) {
            self.bytes = ArraySlice(bytes)
            offset = self.bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - offset }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func skip(_ count: Int) -> Bool { take(count) != nil }
        mutating func byte() -> UInt8? { take(1)?.first }

        mutating func uint16() -> UInt16? {
            guard let two = take(2) else { return nil }
            return UInt16(two[two.startIndex]) << 8 | UInt16(two[two.startIndex + 1])
        }

        mutating func uint24() -> Int? {
            guard let three = take(3) else { return nil }
            return three.reduce(0) { $0 << 8 | Int($1) }
        }
    }
}
