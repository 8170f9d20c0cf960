import BatonLoop
import Foundation

/// The node's part that holds this device's identity and keeps it in step with the group:
/// the signed revocation list and the discovery key, from the files beside the identity
/// (watched) and from linked peers (checked against the group's signature and the list's
/// commitment). The one place the identity is held; the other parts ask it here.
///
/// Nothing here acts on the links: what a new list or key means for them is the node's, told
/// through `onNewList` and `onNewKey`.
@MainActor
final class TrustSync {
    /// This device's identity, with the newest list and key held.
    private(set) var identity: DeviceIdentity
    /// The identity's folder, when the node was given one: its `revocations` and
    /// `discovery.key` are watched, and what arrives from peers is saved there.
    let directory: URL?
    private let revocationsFile: URL?
    /// `revocationsFile`'s path, made once: it is stamped before every call answered.
    private let revocationsPath: String?
    private let keyFile: URL?
    /// The `revocations` file as last read: a call answered reads it again only if its stamp
    /// changed (`syncRevocationsFromDisk()`).
    private var revocationsStamp: FileStamp?
    private var watches: [FileWatch] = []
    private let log: PeerLogger

    /// A newer list is held now, from the peer named (nil: from disk). Not called for a list
    /// held already.
    var onNewList: (@MainActor (_ from: String?) -> Void)?
    /// The discovery key the list held names is held now, from the peer named (nil: from disk).
    var onNewKey: (@MainActor (_ from: String?) -> Void)?

    init(identity: DeviceIdentity, directory: URL?, log: PeerLogger) {
        self.identity = identity
        self.directory = directory
        revocationsFile = directory?.appendingPathComponent("revocations")
        revocationsPath = revocationsFile?.path
        keyFile = directory?.appendingPathComponent("discovery.key")
        self.log = log
    }

    /// The name shown for the device of `identifier`, from the list held.
    func name(of identifier: String) -> String { identity.deviceName(of: identifier) }

    /// Watches `revocations` and `discovery.key` beside the identity: a list or key copied in
    /// takes effect at once, without waiting for a connection or a call.
    func watchFiles() {
        guard watches.isEmpty else { return }
        for file in [revocationsFile, keyFile].compactMap({ $0 }) {
            do {
                watches.append(try FileWatch(file) { [weak self] in self?.syncWithDisk() })
            } catch {
                log.error("cannot watch \(file.path); it is looked at again at each connection and call: \(error)")
            }
        }
    }

    func stopWatching() {
        for watch in watches { watch.cancel() }
        watches = []
    }

    /// Takes what changed on disk: the list (`syncRevocationsFromDisk()`), then the key it
    /// names if not held yet.
    func syncWithDisk() {
        syncRevocationsFromDisk()
        if !identity.discoveryKeyIsCurrent { takeDiscoveryKeyFromDisk() }
    }

    /// Reads `revocations` beside the identity if it changed since it was last read (a `stat`,
    /// no read, when it did not) and takes the list if it is newer than the one held; then
    /// calls `onNewList` — the node cuts the links of the devices it revokes. Called before
    /// each connection is checked and each call is answered, so the list on disk decides even
    /// before its file watch has fired. Returns whether a newer list was taken.
    @discardableResult
    func syncRevocationsFromDisk() -> Bool {
        guard let file = revocationsFile, let path = revocationsPath else { return false }
        let stamp = FileStamp(atPath: path)
        guard stamp != revocationsStamp else { return false }
        revocationsStamp = stamp
        guard stamp != nil, let data = try? SecureFiles.read(file), data != identity.revocationData else { return false }
        let before = identity.revocations.sequence
        do { try identity.adopt(revocationData: data) } catch TrustError.revocationListOlder {
            // an older copy written back: the newer list held stays
        } catch {
            log.error("ignoring \(file.path): \(error)")
        }
        guard identity.revocations.sequence > before else { return false }
        log.info("revocation list \(identity.revocations.sequence) read from \(file.deletingLastPathComponent().path)")
        onNewList?(nil)
        return true
    }

    /// Takes a peer's signed list if the group signed it and it is newer than the one held,
    /// saves it beside the identity and calls `onNewList`. So a revocation, or a new device's
    /// name, spreads through the group as devices meet, and at once between devices linked.
    ///
    /// The list beside the identity is taken first: one copied in whose file-watch event has
    /// not been handled yet (the peer's list can be queued ahead of it) is held before the
    /// peer's is compared, so the peer's is saved over it only if newer — never an older
    /// list over a newer one, which no device would then pass on. Returns whether the peer's
    /// list was taken.
    @discardableResult
    func consider(revocationData data: Data, from peer: String) -> Bool {
        syncRevocationsFromDisk()
        guard data != identity.revocationData else { return false }
        var updated = identity
        do { try updated.adopt(revocationData: data) } catch TrustError.revocationListOlder {
            return false
        } catch {
            log.error("ignoring the revocation list from \(peer): \(error)")
            return false
        }
        guard updated.revocations.sequence > identity.revocations.sequence else { return false }
        identity = updated
        log.info("revocation list \(updated.revocations.sequence) received from \(peer)")
        if let revocationsFile {
            // The stamp stays the one last read: a list copied in just after this write, before
            // a stat of it, would otherwise pass for this write and never be read.
            do { try SecureFiles.write(data, to: revocationsFile, mode: 0o600) } catch {
                log.error("cannot save the revocation list: \(error)")
            }
        }
        onNewList?(peer)
        return true
    }

    /// Takes `discovery.key` from the identity's folder if the list held commits to it.
    func takeDiscoveryKeyFromDisk() {
        guard let keyFile, let bytes = try? SecureFiles.readPrivate(keyFile),
              (try? identity.adopt(discoveryKey: bytes)) != nil else { return }
        log.info("discovery key of revocation list \(identity.revocations.sequence) read from \(keyFile.deletingLastPathComponent().path)")
        savePreviousDiscoveryKey()
        onNewKey?(nil)
    }

    /// Takes `bytes`, which `peer` handed over, as the discovery key if the list held commits
    /// to it (a peer cannot hand over another), saves it beside the identity and calls
    /// `onNewKey`. A list or key copied in meanwhile is taken first, so a peer's key for an
    /// older list never replaces a newer one on disk. Throws when the list does not commit to
    /// it; returns false when the key held is current already.
    @discardableResult
    func adopt(discoveryKey bytes: Data, from peer: String) throws -> Bool {
        syncWithDisk()
        guard !identity.discoveryKeyIsCurrent else { return false }
        try identity.adopt(discoveryKey: bytes)
        if let keyFile {
            do { try SecureFiles.write(bytes, to: keyFile, mode: 0o600) } catch {
                log.error("cannot save the discovery key: \(error)")
            }
        }
        savePreviousDiscoveryKey()
        log.info("discovery key of revocation list \(identity.revocations.sequence) received from \(peer)")
        onNewKey?(peer)
        return true
    }

    /// Writes the key held before the one just adopted beside the identity
    /// (`discovery.key.previous`), so that after a restart this device still proves it to a
    /// device that missed the rotation.
    private func savePreviousDiscoveryKey() {
        guard let directory, let previous = identity.previousDiscoveryKey else { return }
        do { try SecureFiles.write(previous.bytes, to: directory.appendingPathComponent("discovery.key.previous"), mode: 0o600) } catch {
            log.error("cannot save the previous discovery key: \(error)")
        }
    }
}
