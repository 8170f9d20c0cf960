import Baton
import BatonLoop
import CGLib
import CSoup
import Foundation

/// Confirms an app's associated domain for web-to-app handoff (handoff-programming-guide, "Web
/// Browser-to-Native App Handoff"), the way Apple's systems do: it fetches
/// `https://DOMAIN/.well-known/apple-app-site-association` and accepts the claim only if the
/// file's `activitycontinuation.apps` lists the app as `TEAM.appID`.
///
/// The fetch uses libsoup on the app's loop: the session is made, and each request started,
/// with `MainLoop.context` as the thread-default context. The server is verified against the
/// system's CA store (GIO's default TLS database), or against `trustedCertificates` for a
/// private CA. Redirects are not followed, and a file over 128 KiB is refused. Confirmed
/// claims are remembered for an hour; refusals are asked again.
@MainActor
public final class AssociatedDomains: AssociatedDomainVerifier {
    /// Where a domain serves its file, as Apple's apps look for it (Apple's "Supporting
    /// associated domains"): `https://DOMAIN/.well-known/apple-app-site-association`.
    nonisolated public static let path = "/.well-known/apple-app-site-association"
    /// The largest file accepted, in bytes (128 KiB, Apple's limit for the file): the read
    /// stops, and the claim is refused, as soon as more has arrived.
    nonisolated public static let sizeLimit = 128 * 1024
    nonisolated(unsafe) private let session: UnsafeMutablePointer<SoupSession>  // nonisolated(unsafe): for deinit only
    private var confirmed: [String: Date] = [:]

    /// A verifier trusting the system's CA store, or only the CA certificates in the PEM file
    /// `trustedCertificates`.
    public init(trustedCertificates: URL? = nil) throws(AssociatedDomainError) {
        session = MainLoop.withThreadDefaultContext { soup_session_new() }
        soup_session_set_timeout(session, 10)
        soup_session_set_user_agent(session, "Baton/1")
        if let file = trustedCertificates {
            var error: UnsafeMutablePointer<GError>?
            guard let database = g_tls_file_database_new(file.path, &error) else {
                g_object_unref(session)
                throw .unreachable(file.path, GLibError(consuming: error!).message)
            }
            soup_session_set_tls_database(session, gCast(database))
            g_object_unref(database)
        }
    }

    deinit { g_object_unref(session) }

    public func verify(_ domain: String, lists appIdentifier: String) async throws -> Bool {
        let key = domain + " " + appIdentifier
        if let date = confirmed[key], Date().timeIntervalSince(date) < 3600 { return true }
        let listed = try Self.apps(in: try await Self.fetch(domain, with: SendablePointer(session)), domain: domain).contains(appIdentifier)
        if listed { confirmed[key] = Date() }
        return listed
    }

    private static func fetch(_ domain: String, with session: SendablePointer<SoupSession>) async throws(AssociatedDomainError) -> Data {
        guard !domain.contains("/"), !domain.contains("@"), let message = soup_message_new("GET", "https://\(domain)\(Self.path)") else {
            throw .invalidDomain(domain)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        soup_message_add_flags(message, SOUP_MESSAGE_NO_REDIRECT)
        let sent = SendableOpaque(message)
        let stream: SendablePointer<GInputStream>
        do {
            stream = try await GIOAsync.call { cancellable, callback, userData in
                soup_session_send_async(session.pointer, sent.pointer, G_PRIORITY_DEFAULT, cancellable, callback, userData)
            } finish: { result, error in
                soup_session_send_finish(session.pointer, result, error).map(SendablePointer.init)
            }
        } catch {
            throw .unreachable(domain, GLibError(error).message)
        }
        defer {
            g_input_stream_close(stream.pointer, nil, nil)
            g_object_unref(stream.pointer)
        }
        let status = soup_message_get_status(message)
        guard status == SOUP_STATUS_OK else { throw .status(domain, Int(status.rawValue)) }
        var body = Data()
        while true {
            let chunk: Data
            do { chunk = try await GIOCalls.read(from: stream.pointer, maxLength: 16 * 1024) } catch {
                throw .unreachable(domain, GLibError(error).message)
            }
            if chunk.isEmpty { return body }
            body.append(chunk)
            guard body.count <= Self.sizeLimit else { throw .tooLarge(domain) }
        }
    }

    /// The apps an associated-domain file lists for activity continuation.
    nonisolated static func apps(in file: Data, domain: String) throws(AssociatedDomainError) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: file) as? [String: Any] else {
            throw .malformed(domain, "the file is not a JSON object")
        }
        guard let section = root["activitycontinuation"] as? [String: Any] else { return [] }
        guard let apps = section["apps"] as? [String] else { throw .malformed(domain, "activitycontinuation.apps is not a list of strings") }
        return apps
    }
}

/// Why a domain's claim could not be checked.
public enum AssociatedDomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The claim does not name a domain (`host` or `host:port`).
    case invalidDomain(String)
    /// No connection, a TLS certificate not trusted, or a read that failed.
    case unreachable(String, String)
    /// The server answered with another status than 200 (redirects are not followed).
    case status(String, Int)
    /// The domain's file is larger than `AssociatedDomains.sizeLimit`.
    case tooLarge(String)
    /// The domain's file is not the JSON Apple describes; the second value says what is wrong.
    case malformed(String, String)

    public var description: String {
        switch self {
        case .invalidDomain(let domain): "'\(domain)' is not a domain"
        case .unreachable(let domain, let reason): "cannot fetch the associated-domain file of \(domain): \(reason)"
        case .status(let domain, let status): "\(domain) answered HTTP \(status) for \(AssociatedDomains.path)"
        case .tooLarge(let domain): "the associated-domain file of \(domain) is over \(AssociatedDomains.sizeLimit) bytes"
        case .malformed(let domain, let reason): "the associated-domain file of \(domain) is malformed: \(reason)"
        }
    }
}
