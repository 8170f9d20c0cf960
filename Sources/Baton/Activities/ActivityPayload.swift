import Foundation
import Logging

/// An activity as bytes: the GVariant `(uv)` of docs/PROTOCOL.md — a version, and boxed in
/// the variant the body of that version; version 1's body is `(sa{sv}a{sv})`: activity type,
/// properties, userInfo. Normal form, little-endian. Any version can be read before its body,
/// so a newer payload is recognised as such.
extension UserActivity {
    /// The payload layout this Baton writes and reads.
    nonisolated public static let payloadVersion: UInt32 = 1
    /// Apple's advice: keep the payload under 3 KB (handoff-programming-guide, "Best
    /// Practices"). Larger payloads are sent, with a logged warning.
    nonisolated public static let payloadAdvisedSize = 3 * 1024
    /// The hard limit: larger payloads are refused with
    /// `CocoaError(.userActivityHandoffUserInfoTooLarge)`. 64 KiB: twenty times the advice,
    /// still one quick read on any link; bigger data belongs in continuation streams.
    nonisolated public static let payloadLimit = 64 * 1024

    static let payloadType = "(uv)"
    static let bodyType = "(sa{sv}a{sv})"

    /// Saves the activity (its responders, documents or delegate bring it up to date, as
    /// before any handoff), then serialises it. Throws
    /// `CocoaError(.userActivityHandoffUserInfoTooLarge)` over `payloadLimit`, or a
    /// `UserActivityError` for what cannot be encoded.
    public func payload() throws -> Data {
        ActivityRegistry.shared.save(self)
        return try encodedPayload()
    }

    /// Serialises the activity as it is, without saving first. The bytes are written directly
    /// (`WireWriter`), identical to what GLib's builder makes of the same values.
    public func encodedPayload() throws -> Data {
        let bytes = try serializedBytes()
        let size = bytes.count
        if size > UserActivity.payloadLimit {
            throw CocoaError(.userActivityHandoffUserInfoTooLarge, userInfo: [
                NSLocalizedDescriptionKey: UserActivityError.payloadTooLarge(size: size, limit: UserActivity.payloadLimit).description,
            ])
        }
        if size > UserActivity.payloadAdvisedSize {
            Logger(label: "baton").warning(
                "activity \(activityType) payload is \(size) bytes; Handoff advises under \(UserActivity.payloadAdvisedSize)")
        }
        return Data(bytes)
    }

    /// The activity as it is, serialised, with no size check and nothing logged (what
    /// `encodedPayload()` checks, and inspection measures).
    func serializedPayload() throws -> Data { Data(try serializedBytes()) }

    private func serializedBytes() throws -> [UInt8] {
        var writer = WireWriter(capacity: 1024)
        writer.append(UserActivity.payloadVersion)
        writer.align(7)
        let body = writer.begin()
        let typeWritten = writer.appendString(activityType)
        writer.markEnd(of: body)
        writer.align(7)
        try writeProperties(into: &writer)
        writer.markEnd(of: body)
        writer.align(7)
        try UserInfoCoding.encode(userInfo ?? [:], into: &writer)
        writer.finishTuple(body)
        writer.append("\0(sa{sv}a{sv})")
        guard typeWritten else {
            throw UserActivityError.malformedPayload(reason: "\(VariantError.stringContainsNUL(String(activityType.prefix(40))))")
        }
        return writer.bytes
    }

    /// Reads a payload from untrusted bytes: size, normal form, version and every field's type
    /// are checked, and each problem is a `UserActivityError` that says what was wrong. The
    /// bytes are read directly (`WireReader`), accepting exactly what GLib reads in normal form,
    /// and refusing in the same order: bytes that are not a normal-form `(uv)` of types
    /// `Variant` models, then the version, the body's type, the properties, the userInfo.
    public convenience init(payload data: Data) throws(UserActivityError) {
        guard data.count <= UserActivity.payloadLimit else {
            throw .payloadTooLarge(size: data.count, limit: UserActivity.payloadLimit)
        }
        let read = data.withUnsafeBytes { raw in UserActivity.readPayload(WireReader(bytes: raw)) }
        let fields: PayloadFields
        switch read {
        case .success(let f): fields = f
        case .failure(let error): throw error
        }
        self.init(activityType: fields.type)
        try applyProperties(fields.properties)
        switch fields.userInfo {
        case .success(let info): storeDecodedUserInfo(info)
        case .failure(let error): throw error
        }
    }

    /// A version 1 body, read and checked up to what needs an activity to apply.
    private struct PayloadFields {
        var type: String
        var properties: [String: Variant]
        /// The userInfo, or why it is not one (refused only after the properties, as always).
        var userInfo: Result<[AnyHashable: Any], UserActivityError>
    }

    private static func readPayload(_ reader: WireReader) -> Result<PayloadFields, UserActivityError> {
        let size = reader.bytes.count
        func malformed(_ error: WireFormatError) -> Result<PayloadFields, UserActivityError> {
            .failure(.malformedPayload(reason: error.reason(type: payloadType, size: size)))
        }
        // (uv): the version at 0, zero padding, the boxed body from 8 to the end.
        guard size >= 8, reader.uint32(4) == 0 else { return malformed(.notNormalForm) }
        let version = reader.uint32(0)
        let (inner, typeBytes): (Int, UnsafeRawBufferPointer)
        do { (inner, typeBytes) = try reader.boxed(8, size - 8, 1) } catch { return malformed(error) }
        let isBody = typeBytes.elementsEqual(bodyType.utf8)
        guard version == payloadVersion, isBody else {
            // Any other version or body: the whole value must still be well formed first.
            let bodyType: WireType
            do {
                bodyType = try reader.boxedType(typeBytes, size: inner, depth: 1)
                _ = try reader.value(bodyType, 8, inner, 2)
            } catch { return malformed(error) }
            guard version == payloadVersion else { return .failure(.unsupportedPayloadVersion(version)) }
            return .failure(.malformedPayload(reason: "a version 1 body must be \(UserActivity.bodyType), not \(bodyType.typeString)"))
        }
        var type = "", properties: [String: Variant] = [:]
        var userInfo: Result<[AnyHashable: Any], UserActivityError> = .success([:])
        do throws(WireFormatError) {
            try reader.boxedDepth(4, 1)
            try reader.members(bodyMembers, 8, inner, fixedSize: 0, alignmentMask: 7) { (index, start, count) throws(WireFormatError) in
                switch index {
                case 0: type = try reader.string(start, count, 3)
                case 1:
                    guard case .dictionary(let p) = try reader.value(.array(.entry), start, count, 3) else { throw .notNormalForm }
                    properties = p
                default:
                    do throws(UserInfoDecodingFailure) {
                        userInfo = .success(try UserInfoCoding.decodeUserInfo(reader, start, count, depth: 3))
                    } catch {
                        switch error {
                        case .wire(let wire): throw wire
                        case .notUserInfo(let steps, let reason):
                            // Refused after the properties, unless the bytes are not well formed.
                            _ = try reader.value(.array(.entry), start, count, 3)
                            userInfo = .failure(.malformedPayload(reason: UserInfoDecodingFailure.reason(steps, reason)))
                        }
                    }
                }
            }
        } catch { return malformed(error) }
        guard !type.isEmpty else { return .failure(.malformedPayload(reason: "the activity type is empty")) }
        return .success(PayloadFields(type: type, properties: properties, userInfo: userInfo))
    }

    private static let bodyMembers: [WireType] = [.string, .array(.entry), .array(.entry)]

    /// The properties as `a{sv}`, keys in byte order (`WireWriter.precedes`); keywords and
    /// required keys as `as`, in the same order.
    private func writeProperties(into writer: inout WireWriter) throws(UserActivityError) {
        var entries: [(key: StaticString, write: (inout WireWriter) throws(UserActivityError) -> Void)] = []
        func text(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            entries.append((key, { (w: inout WireWriter) throws(UserActivityError) in
                guard w.appendString(value) else { throw .stringContainsNUL(field: "\(key)") }
                w.append("\0s")
            }))
        }
        func flag(_ key: StaticString, _ value: Bool) {
            entries.append((key, { (w: inout WireWriter) in w.appendByte(value ? 1 : 0); w.append("\0b") }))
        }
        func strings(_ key: StaticString, _ values: Set<String>) {
            entries.append((key, { (w: inout WireWriter) throws(UserActivityError) in
                let array = w.begin()
                for value in values.sorted(by: WireWriter.precedes) {
                    guard w.appendString(value) else { throw .malformedPayload(reason: "\(VariantError.stringContainsNUL(String(value.prefix(40))))") }
                    w.markEnd(of: array)
                }
                w.finishArray(array)
                w.append("\0as")
            }))
        }
        // In key order.
        flag("eligibleForHandoff", isEligibleForHandoff)
        flag("eligibleForPublicIndexing", isEligibleForPublicIndexing)
        flag("eligibleForSearch", isEligibleForSearch)
        if let expirationDate {
            let seconds = expirationDate.timeIntervalSince1970
            entries.append(("expirationDate", { (w: inout WireWriter) in w.append(seconds); w.append("\0d") }))
        }
        if !keywords.isEmpty { strings("keywords", keywords) }
        text("persistentIdentifier", persistentIdentifier)
        text("referrerURL", referrerURL?.absoluteString)
        if let requiredUserInfoKeys { strings("requiredUserInfoKeys", requiredUserInfoKeys) }
        flag("supportsContinuationStreams", supportsContinuationStreams)
        text("targetContentIdentifier", targetContentIdentifier)
        text("title", title)
        text("webpageURL", webpageURL?.absoluteString)

        let array = writer.begin()
        for (key, write) in entries {
            writer.align(7)
            let entry = writer.begin()
            writer.append(key)
            writer.appendByte(0)
            writer.markEnd(of: entry)
            writer.align(7)
            try write(&writer)
            writer.finishTuple(entry)
            writer.markEnd(of: array)
        }
        writer.finishArray(array)
    }

    /// Known properties must have their type; unknown ones are ignored, so a newer sender
    /// can add properties without breaking older readers.
    func applyProperties(_ p: [String: Variant]) throws(UserActivityError) {
        func text(_ key: String) throws(UserActivityError) -> String? {
            guard let value = p[key] else { return nil }
            guard case .string(let s) = value else { throw wrongType(key, value, "s") }
            return s
        }
        func url(_ key: String) throws(UserActivityError) -> URL? {
            guard let s = try text(key) else { return nil }
            guard let url = URL(string: s) else { throw .malformedPayload(reason: "\(key) '\(s)' is not a URL") }
            return url
        }
        func flag(_ key: String) throws(UserActivityError) -> Bool? {
            guard let value = p[key] else { return nil }
            guard case .bool(let b) = value else { throw wrongType(key, value, "b") }
            return b
        }
        func strings(_ key: String) throws(UserActivityError) -> Set<String>? {
            guard let value = p[key] else { return nil }
            guard case .array(elementType: "s", let items) = value else { throw wrongType(key, value, "as") }
            return Set(items.compactMap { if case .string(let s) = $0 { s } else { nil } })
        }
        title = try text("title")
        if let page = try url("webpageURL") { try setWebpageURL(page) }
        referrerURL = try url("referrerURL")
        targetContentIdentifier = try text("targetContentIdentifier")
        persistentIdentifier = try text("persistentIdentifier")
        if let value = p["expirationDate"] {
            guard case .double(let seconds) = value else { throw wrongType("expirationDate", value, "d") }
            expirationDate = Date(timeIntervalSince1970: seconds)
        }
        keywords = try strings("keywords") ?? []
        requiredUserInfoKeys = try strings("requiredUserInfoKeys")
        isEligibleForHandoff = try flag("eligibleForHandoff") ?? true
        isEligibleForSearch = try flag("eligibleForSearch") ?? false
        isEligibleForPublicIndexing = try flag("eligibleForPublicIndexing") ?? false
        supportsContinuationStreams = try flag("supportsContinuationStreams") ?? false
    }

    private func wrongType(_ key: String, _ value: Variant, _ expected: String) -> UserActivityError {
        .malformedPayload(reason: "property \(key) has type \(value.typeString), not \(expected)")
    }
}
