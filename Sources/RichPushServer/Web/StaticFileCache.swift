import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import Synchronization

/// One file of the public directory as it is served: its bytes, their gzip when that is worth it, and validators.
struct StaticFile: Sendable {
    let bytes: ByteBuffer
    let gzipped: ByteBuffer?
    let contentType: String
    /// Size and modification time, as nginx makes it; the gzip has its own, being another representation.
    let entityTag: String
    let gzippedEntityTag: String
    let lastModified: String
    let modified: Date
}

/// The public directory's files, read once and kept while their size and modification time stay the same, so an
/// edited console file is served new without a restart.
final class StaticFileCache: Sendable {
    /// Larger files are read for each request and not kept: a public directory is the operator's to fill.
    static let largestKept = 4 << 20

    let directory: URL
    private let kept = Mutex<[String: StaticFile]>([:])

    init(directory: String) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
    }

    /// The file the request path names, `index.html` for a directory; nil for none, and for a path that would leave
    /// the directory or name a hidden file.
    func file(at requestPath: String) -> StaticFile? {
        // The API's paths are the router's: no file is looked for under them.
        guard !requestPath.hasPrefix("/api/"), let path = requestPath.removingPercentEncoding else { return nil }
        let segments = path.split(separator: "/")
        guard !segments.contains(where: { $0.hasPrefix(".") }) else { return nil }
        var url = segments.reduce(directory) { $0.appendingPathComponent(String($1)) }
        guard var attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            url.appendPathComponent("index.html")
            guard let index = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            attributes = index
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int,
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        if let file = kept.withLock({ $0[url.path] }), file.bytes.readableBytes == size, file.modified == modified { return file }
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let file = Self.serving(ByteBuffer(data: data), of: url, modified: modified)
        if size <= Self.largestKept { kept.withLock { $0[url.path] = file } }
        return file
    }

    private static func serving(_ bytes: ByteBuffer, of url: URL, modified: Date) -> StaticFile {
        let contentType = contentTypes[url.pathExtension.lowercased()] ?? "application/octet-stream"
        let gzipped = bytes.readableBytes > Gzip.threshold && Gzip.compresses(contentType) ? Gzip.compress(bytes) : nil
        let seconds = Int(modified.timeIntervalSince1970)
        let tag = String(seconds, radix: 16) + "-" + String(bytes.readableBytes, radix: 16)
        return StaticFile(
            bytes: bytes, gzipped: gzipped, contentType: contentType, entityTag: "\"\(tag)\"", gzippedEntityTag: "\"\(tag)-gzip\"",
            lastModified: HTTPDate.format(time_t(seconds)), modified: modified)
    }

    private static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "txt": "text/plain; charset=utf-8", "yaml": "application/yaml", "yml": "application/yaml",
        "json": "application/json", "map": "application/json", "webmanifest": "application/manifest+json", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif", "svg": "image/svg+xml",
        "ico": "image/x-icon", "woff2": "font/woff2", "woff": "font/woff",
    ]
}
