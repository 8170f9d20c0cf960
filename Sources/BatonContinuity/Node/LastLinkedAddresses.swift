import Foundation

/// The addresses this device last linked over by dialing, newest first, kept in the file
/// `last-linked` beside its identity (0600, written atomically, at most `capacity` entries):
/// what a device that starts dials at once, before discovery has told it anything, so it need
/// not wait to be dialed.
///
/// The file's contents are hints, never trusted: an entry that is not `host:port` is skipped,
/// a file over `maximumFileSize` is ignored whole, and whoever answers at an address is still
/// admitted only by the group's mutual TLS (the same gate as any dial).
@MainActor
final class LastLinkedAddresses {
    /// The most addresses kept.
    static let capacity = 16
    /// A longer file is ignored whole (16 addresses of the longest form fit well within it).
    static let maximumFileSize = 4096
    /// The file's name, in the identity's folder.
    static let fileName = "last-linked"

    private let file: URL?
    /// Newest first.
    private(set) var addresses: [PeerAddress]
    private let log: PeerLogger

    /// The addresses in `directory`'s file (none without a directory, or if it cannot be read).
    init(directory: URL?, log: PeerLogger) {
        self.log = log
        file = directory?.appendingPathComponent(Self.fileName)
        addresses = file.map(Self.read(from:)) ?? []
    }

    /// Puts `address` first (once) and writes the file if that changed it.
    func record(_ address: PeerAddress) {
        guard file != nil, addresses.first != address else { return }
        addresses.removeAll { $0 == address }
        addresses.insert(address, at: 0)
        if addresses.count > Self.capacity { addresses.removeLast(addresses.count - Self.capacity) }
        write()
    }

    private func write() {
        guard let file else { return }
        let text = addresses.map { "\($0)\n" }.joined()
        do { try SecureFiles.write(Data(text.utf8), to: file, mode: 0o600) } catch {
            log.notice("cannot keep the addresses last linked over: \(error)")
        }
    }

    /// The entries of the file at `url` that parse, at most `capacity`; none if it is missing,
    /// unreadable, too large or not UTF-8.
    static func read(from url: URL) -> [PeerAddress] {
        guard let data = try? SecureFiles.read(url), data.count <= maximumFileSize,
              let text = String(data: data, encoding: .utf8) else { return [] }
        var seen: [PeerAddress] = []
        for line in text.split(separator: "\n") where seen.count < capacity {
            guard let address = PeerAddress(String(line)), !seen.contains(address) else { continue }
            seen.append(address)
        }
        return seen
    }
}
