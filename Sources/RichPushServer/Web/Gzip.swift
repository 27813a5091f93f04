import CompressNIO
import Foundation
import HTTPTypes
import NIOCore

/// gzip for answers a client asked to have compressed (RFC 9110 §12.5.3), through compress-nio's zlib.
enum Gzip {
    /// Below this a compressed answer saves less than its headers and the work cost.
    static let threshold = 1024

    /// Whether `Accept-Encoding` takes gzip: named (or `*`) with a weight above 0.
    static func isAccepted(by headers: HTTPFields) -> Bool {
        guard let header = headers[.acceptEncoding] else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, ["gzip", "x-gzip", "*"].contains(coding) else { return false }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
    }

    /// Whether an answer of `contentType` is worth compressing: text, JSON, YAML, JavaScript, CSS, SVG.
    static func compresses(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type.hasPrefix("text/") || type.hasSuffix("json") || type.hasSuffix("yaml") || type.hasSuffix("javascript")
            || type == "image/svg+xml"
    }

    /// Clients guard against decompression bombs by the ratio: AsyncHTTPClient's shared client, its default, refuses a
    /// body that inflates to more than 25 times its size, and a page of a thousand deliveries gzips further than that.
    static let largestRatio = 20

    /// `bytes` gzipped; nil when zlib fails or the gzip would be smaller than a 20th, and the answer then goes as it is.
    static func compress(_ bytes: ByteBuffer) -> ByteBuffer? {
        var input = bytes
        guard let gzipped = try? input.compress(with: .gzip()), gzipped.readableBytes * largestRatio >= bytes.readableBytes else {
            return nil
        }
        return gzipped
    }
}
