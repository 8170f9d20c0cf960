import Crypto
import Foundation
import SwiftASN1
import X509

/// Reading the files of an identity or a group: sizes checked before any byte is read,
/// private keys refused when others may read them, and every failure a `TrustError` that
/// names the file and says in words what is wrong with it. Writing goes through
/// `FileTransaction`.
enum SecureFiles {
    /// No file of an identity or a group comes near this size (the largest, a revocation list
    /// of thousands of devices, stays under 100 KiB).
    static let sizeLimit = 1 << 20

    /// Writes `data` to `url` with `mode`, atomically, creating the folder (0700) first.
    static func write(_ data: Data, to url: URL, mode: UInt16) throws(TrustError) {
        let transaction = FileTransaction()
        try transaction.write(data, to: url, mode: mode)
        try transaction.commit()
    }

    /// True if `url` exists (a symbolic link counts, even one to nothing); false if it or a
    /// folder on its path does not. Throws when that cannot be known (a folder on the path
    /// that may not be searched).
    static func exists(_ url: URL) throws(TrustError) -> Bool {
        var info = stat()
        if lstat(url.path, &info) == 0 { return true }
        let error = errno
        switch error {
        case ENOENT: return false
        case ENOTDIR: throw .unreadable(path: url.deletingLastPathComponent().path, reason: "it is not a folder")
        default: throw .unreadable(path: url.deletingLastPathComponent().path, reason: systemReason(error))
        }
    }

    static func read(_ url: URL) throws(TrustError) -> Data { try read(url, isPrivate: false) }

    /// Reads a private key file, refusing one that group or others may read or write.
    static func readPrivate(_ url: URL) throws(TrustError) -> Data { try read(url, isPrivate: true) }

    /// The certificate in the PEM file `url`.
    static func certificate(at url: URL) throws(TrustError) -> Certificate {
        let document = try pemDocument(try read(url), path: url.path)
        guard document.discriminator == "CERTIFICATE" else {
            throw .malformedFile(path: url.path, problem: "it holds a \(document.discriminator), not a CERTIFICATE")
        }
        do { return try Certificate(derEncoded: document.derBytes) } catch {
            throw .malformedFile(path: url.path, problem: "its CERTIFICATE block does not decode as an X.509 certificate")
        }
    }

    /// The ECDSA P-256 private key in the PEM file `url` (SEC 1 or PKCS #8), which must be
    /// readable by its owner only.
    static func privateKey(at url: URL) throws(TrustError) -> P256.Signing.PrivateKey {
        let data = try readPrivate(url)
        let document = try pemDocument(data, path: url.path)
        switch document.discriminator {
        case "EC PRIVATE KEY", "PRIVATE KEY": break
        case "RSA PRIVATE KEY": throw .wrongKeyType(path: url.path, found: "an RSA key")
        case let other: throw .malformedFile(path: url.path, problem: "it holds a \(other), not a PRIVATE KEY")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: text) { return key }
        if (try? P384.Signing.PrivateKey(pemRepresentation: text)) != nil { throw .wrongKeyType(path: url.path, found: "an ECDSA P-384 key") }
        if (try? P521.Signing.PrivateKey(pemRepresentation: text)) != nil { throw .wrongKeyType(path: url.path, found: "an ECDSA P-521 key") }
        if let kind = keyKind(pkcs8: document.derBytes) { throw .wrongKeyType(path: url.path, found: kind) }
        throw .malformedFile(path: url.path, problem: "its \(document.discriminator) block does not decode as a private key")
    }

    /// The revocation list in the file `url`, checked against `authority`, and its bytes.
    static func revocationList(at url: URL, authority: Certificate) throws(TrustError) -> (list: RevocationList, data: Data) {
        let data = try read(url)
        do { return (try RevocationList.verified(data, authority: authority, path: url.path), data) } catch let error as TrustError {
            throw error
        } catch {
            throw .revocationListNotSigned(path: url.path)
        }
    }

    /// The system's words for `error` ("Permission denied").
    static func systemReason(_ error: Int32) -> String { String(cString: strerror(error)) }

    private static func read(_ url: URL, isPrivate: Bool) throws(TrustError) -> Data {
        let path = url.path
        do { return try FileContents.read(path, limit: sizeLimit, ownerOnly: isPrivate) } catch {
            switch error {
            case .missing: throw .missingFile(path: path)
            case .unreadable(let reason): throw .unreadable(path: path, reason: reason)
            case .notARegularFile(let isFolder):
                throw .unreadable(path: path, reason: isFolder ? "it is a folder, not a file" : "it is not a regular file")
            case .tooLarge(let size): throw .fileTooLarge(path: path, size: size, limit: sizeLimit)
            case .readableByOthers(let mode): throw .keyFileTooOpen(path: path, mode: mode)
            }
        }
    }

    private static func pemDocument(_ data: Data, path: String) throws(TrustError) -> PEMDocument {
        guard let text = String(data: data, encoding: .utf8) else {
            throw .malformedFile(path: path, problem: "it is not text, and a PEM file is")
        }
        guard text.contains("-----BEGIN ") else {
            throw .malformedFile(path: path, problem: data.isEmpty ? "it is empty" : "it holds no PEM block (-----BEGIN …-----)")
        }
        do { return try PEMDocument(pemString: text) } catch {
            throw .malformedFile(path: path, problem: "its PEM block is damaged (bad base64, or BEGIN and END lines that do not match)")
        }
    }

    /// What kind of key a PKCS #8 `PRIVATE KEY` holds, from its algorithm identifier; nil if
    /// the bytes are not PKCS #8.
    private static func keyKind(pkcs8 der: [UInt8]) -> String? {
        guard let root = try? DER.parse(der), case .constructed(let fields) = root.content else { return nil }
        let parts = Array(fields)
        guard parts.count >= 3, case .constructed(let algorithm) = parts[1].content, let first = Array(algorithm).first,
              let oid = try? ASN1ObjectIdentifier(derEncoded: first) else { return nil }
        switch oid {
        case .AlgorithmIdentifier.rsaEncryption: return "an RSA key"
        case [1, 3, 101, 112]: return "an Ed25519 key"
        case [1, 3, 101, 113]: return "an Ed448 key"
        case [1, 2, 840, 10_045, 2, 1]: return "an elliptic-curve key on another curve than P-256"
        default: return "a key of another algorithm (\(oid))"
        }
    }
}
