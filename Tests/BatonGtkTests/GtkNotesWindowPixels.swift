#if canImport(CGtk)
import CGtk
import Foundation
import XCTest

/// The pixels of a PNG a GTK app saved of its window, read back with GTK's own loader
/// (`gdk_texture_new_from_filename`, no display needed), for checks a test can state: how
/// many colours, how many dark (text) pixels, how many differ from another picture.
struct WindowPixels {
    let width: Int
    let height: Int
    /// Cairo's ARGB32 (premultiplied, native-endian: B, G, R, A bytes), row by row.
    private let bytes: [UInt8]

    /// A picture GTK could not read.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    init(png file: URL) throws {
        var error: UnsafeMutablePointer<GError>?
        let loaded = g_file_new_for_path(file.path).flatMap { gFile -> OpaquePointer? in
            defer { g_object_unref(UnsafeMutableRawPointer(gFile)) }
            return gdk_texture_new_from_file(gFile, &error)
        }
        guard let texture = loaded else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown"
            if let error { g_error_free(error) }
            throw Unreadable(description: "cannot read \(file.path): \(message)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        width = Int(gdk_texture_get_width(texture))
        height = Int(gdk_texture_get_height(texture))
        var pixels = [UInt8](repeating: 0, count: Int(gdk_texture_get_width(texture) * gdk_texture_get_height(texture)) * 4)
        let stride = gsize(gdk_texture_get_width(texture) * 4)
        pixels.withUnsafeMutableBufferPointer { gdk_texture_download(texture, $0.baseAddress, stride) }
        bytes = pixels
    }

    /// How many different colours the picture has (a blank one has one or two).
    var distinctColours: Int {
        var seen = Set<UInt32>()
        for index in stride(from: 0, to: bytes.count, by: 4) {
            seen.insert(UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16)
            if seen.count > 1000 { break }
        }
        return seen.count
    }

    /// Pixels darker than mid-grey: text, on GTK's light default theme.
    var darkPixels: Int {
        stride(from: 0, to: bytes.count, by: 4).filter { index in
            Int(bytes[index]) + Int(bytes[index + 1]) + Int(bytes[index + 2]) < 3 * 110
        }.count
    }

    /// Pixels that differ (by more than a little, in any channel) from `other`'s at the same place.
    func differingPixels(from other: WindowPixels) -> Int {
        guard other.width == width, other.height == height else { return width * height }
        return stride(from: 0, to: bytes.count, by: 4).filter { index in
            (0..<3).contains { abs(Int(bytes[index + $0]) - Int(other.bytes[index + $0])) > 24 }
        }.count
    }
}
#endif
