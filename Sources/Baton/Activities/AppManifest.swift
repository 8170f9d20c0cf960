import Foundation

/// What an app declares about itself for Handoff: its id, its team, the activity types it
/// can continue (Apple's `NSUserActivityTypes`) and its document types with their activity
/// type (`CFBundleDocumentTypes` / `NSUbiquitousDocumentUserActivityType`).
///
/// An activity continues only into an app of the same team that declares its type
/// (about-handoff, "Handoff Interactions"). Build it in code, or load an `Info.plist` with
/// Apple's keys plus `BatonTeamIdentifier` (Apple takes the team from code signing, which
/// Linux has not). `Application.shared.manifest` loads, by default, the file named by
/// `$BATON_MANIFEST`, else `Info.plist` beside the executable.
public struct AppManifest: Sendable, Equatable {
    /// One entry of `CFBundleDocumentTypes`: a kind of document the app opens, and the activity
    /// type its documents' activities get (about-handoff, "Supporting a User Activity in
    /// Document-Based Apps").
    public struct DocumentType: Sendable, Equatable {
        /// `CFBundleTypeName`.
        public var name: String
        /// `CFBundleTypeExtensions`, without dots.
        public var extensions: [String]
        /// `NSUbiquitousDocumentUserActivityType`: the activity type of its documents.
        public var activityType: String?
        /// `NSDocumentClass`: the `Document` subclass of this type's documents, by its
        /// module-qualified name (`Module.Class`, as Xcode's `$(PRODUCT_MODULE_NAME).Document`
        /// expands); see `DocumentController.documentClass(forType:)`.
        public var documentClassName: String?

        /// A document type named `name`, for files with one of `extensions`, whose documents'
        /// activities are of `activityType` (none: its documents have no automatic activity),
        /// opened as the `Document` subclass named `documentClassName` (`NSDocumentClass`).
        public init(name: String, extensions: [String], activityType: String?, documentClassName: String? = nil) {
            self.name = name
            self.extensions = extensions
            self.activityType = activityType
            self.documentClassName = documentClassName
        }
    }

    /// `CFBundleIdentifier`.
    public var appID: String
    /// `BatonTeamIdentifier`: the team, which on Apple's systems comes from code signing. An
    /// activity continues only into an app of the same team.
    public var teamIdentifier: String
    /// `NSUserActivityTypes`.
    public var activityTypes: [String]
    /// `CFBundleDocumentTypes`.
    public var documentTypes: [DocumentType]
    /// `BatonAssociatedDomains`, in the form of Apple's associated-domains entitlement:
    /// `activitycontinuation:example.com` (also `*.example.com`, and `host:port` for a private
    /// server). Other services' entries are kept but not used.
    public var associatedDomains: [String]

    /// A manifest built in code, with the same meaning as the `Info.plist` keys of each property.
    public init(appID: String, teamIdentifier: String, activityTypes: [String] = [], documentTypes: [DocumentType] = [],
                associatedDomains: [String] = []) {
        self.appID = appID
        self.teamIdentifier = teamIdentifier
        self.activityTypes = activityTypes
        self.documentTypes = documentTypes
        self.associatedDomains = associatedDomains
    }

    /// `TEAM.appID`, as an associated-domain file lists apps.
    public var appIdentifier: String { "\(teamIdentifier).\(appID)" }

    /// The domains this app claims for activity continuation.
    public var continuationDomains: [String] {
        associatedDomains.compactMap { entry in
            entry.hasPrefix("activitycontinuation:") ? String(entry.dropFirst("activitycontinuation:".count)) : nil
        }
    }

    /// The claimed domain that `url` falls under, if any: `https` only, host (and port, if the
    /// claim names one) matching, `*.example.com` covering subdomains (web-to-app handoff,
    /// handoff-programming-guide, "Web Browser-to-Native App Handoff").
    public func claimedDomain(for url: URL) -> String? {
        guard url.scheme?.lowercased() == "https", let host = url.host?.lowercased() else { return nil }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        return continuationDomains.first { claim in
            let claim = claim.lowercased()
            if claim.hasPrefix("*.") { return host.hasSuffix(String(claim.dropFirst(1))) && url.port == nil }
            return claim == authority
        }
    }

    /// The largest manifest read, in bytes (an `Info.plist` is a few KiB).
    public static let sizeLimit = 1 << 20

    /// Reads an `Info.plist` (XML or binary) with Foundation's `PropertyListSerialization`.
    /// The file's size is checked before it is read (at most `sizeLimit`); every error is an
    /// `AppManifestError` that names the file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try FileContents.read(url.path, limit: Self.sizeLimit) } catch {
            switch error {
            case .missing: throw AppManifestError.unreadable(url.path, "No such file or directory")
            case .unreadable(let reason): throw AppManifestError.unreadable(url.path, reason)
            case .notARegularFile: throw AppManifestError.unreadable(url.path, "it is not a regular file")
            case .tooLarge(let size): throw AppManifestError.tooLarge(url.path, size: size, limit: Self.sizeLimit)
            case .readableByOthers: throw AppManifestError.unreadable(url.path, "it may be read by others")
            }
        }
        let decoded: Any
        do { decoded = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw AppManifestError.notAPropertyList(url.path)
        }
        guard let plist = decoded as? [String: Any] else {
            throw AppManifestError.notADictionary(url.path)
        }
        guard let appID = plist["CFBundleIdentifier"] as? String else {
            throw AppManifestError.missingKey("CFBundleIdentifier", url.path)
        }
        guard let team = plist["BatonTeamIdentifier"] as? String else {
            throw AppManifestError.missingKey("BatonTeamIdentifier", url.path)
        }
        let documents = (plist["CFBundleDocumentTypes"] as? [[String: Any]] ?? []).map { entry in
            DocumentType(name: entry["CFBundleTypeName"] as? String ?? "",
                         extensions: entry["CFBundleTypeExtensions"] as? [String] ?? [],
                         activityType: entry["NSUbiquitousDocumentUserActivityType"] as? String,
                         documentClassName: entry["NSDocumentClass"] as? String)
        }
        self.init(appID: appID, teamIdentifier: team,
                  activityTypes: plist["NSUserActivityTypes"] as? [String] ?? [], documentTypes: documents,
                  associatedDomains: plist["BatonAssociatedDomains"] as? [String] ?? [])
    }

    /// The manifest this process ships with, if any (see the type's description).
    public static func loadDefault() throws -> AppManifest? {
        if let path = ProcessInfo.processInfo.environment["BATON_MANIFEST"] {
            return try AppManifest(contentsOf: URL(fileURLWithPath: path))
        }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("Info.plist")
        return FileManager.default.fileExists(atPath: beside.path) ? try AppManifest(contentsOf: beside) : nil
    }

    /// Whether this app may continue an activity of `type` from an app of `team`: same team,
    /// and the type is declared, directly or as a document type's activity type
    /// (handoff-programming-guide, "Adopting Handoff in Document-Based Apps").
    ///
    /// A web-browsing activity (`UserActivity.browsingWebType`) comes from a browser of any
    /// team: an app that claims domains for activity continuation may continue it, once the
    /// domain confirms the claim.
    public func canContinue(activityType type: String, fromTeam team: String) -> Bool {
        if type == UserActivity.browsingWebType { return !continuationDomains.isEmpty }
        return team == teamIdentifier && (activityTypes.contains(type) || documentTypes.contains { $0.activityType == type })
    }

    /// The document type for a file, by its extension.
    public func documentType(for url: URL) -> DocumentType? {
        let ext = url.pathExtension.lowercased()
        return documentTypes.first { $0.extensions.map { $0.lowercased() }.contains(ext) }
    }

    /// The document type whose `CFBundleTypeName` is `name`, if the app declares one.
    public func documentType(named name: String) -> DocumentType? {
        documentTypes.first { $0.name == name }
    }
}

/// Why a manifest file was refused; `description` says it in words, naming the file.
public enum AppManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The property list at this path is not a dictionary.
    case notADictionary(String)
    /// A required key (the first value: `CFBundleIdentifier` or `BatonTeamIdentifier`) is
    /// missing from the file at the second value's path.
    case missingKey(String, String)
    /// The file could not be read: its path and the reason, in words.
    case unreadable(String, String)
    /// The file is larger than `AppManifest.sizeLimit`.
    case tooLarge(String, size: Int, limit: Int)
    /// The file is neither an XML nor a binary property list.
    case notAPropertyList(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .tooLarge(let path, let size, let limit): "\(path) is \(size) bytes, more than a manifest may be (\(limit))"
        case .notAPropertyList(let path): "\(path) is not a property list (XML or binary)"
        case .notADictionary(let path): "\(path) is not a property list dictionary"
        case .missingKey(let key, let path): "\(path) has no \(key)"
        }
    }
}
