import Foundation
import HTTPTypes
import NIOCore

/// What a `Range` header asks of a representation of `size` bytes, as RFC 9110 §14 reads it and nginx answers it.
///
/// One range is served as `206`; a header no range of which falls inside the representation is `416`; a header that
/// does not parse, several ranges, or an `If-Range` that names another version mean the whole representation (§14.2
/// lets a server ignore `Range`, and a multipart answer serves no client of this gateway).
enum ByteRange: Equatable {
    case whole
    case partial(Range<Int>)
    case unsatisfiable

    /// The answer to `range` (the `Range` header) for a representation of `size` bytes whose validators are
    /// `entityTag` and `lastModified`, under the request's `If-Range`.
    init(range: String?, ifRange: String?, size: Int, entityTag: String?, lastModified: String? = nil) {
        guard let range, ifRange.map({ $0 == entityTag || $0 == lastModified }) ?? true else {
            self = .whole
            return
        }
        self = Self.parse(range, size: size)
    }

    private static func parse(_ header: String, size: Int) -> ByteRange {
        let header = header.trimmingCharacters(in: .whitespaces)
        guard header.lowercased().hasPrefix("bytes=") else { return .whole }
        let specs = header.dropFirst("bytes=".count).split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return .whole }
        let parts = specs[0].trimmingCharacters(in: .whitespaces).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty),
            parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } })
        else { return .whole }
        // Digits too many for Int name an offset or a length past any representation this gateway holds.
        if parts[0].isEmpty {
            // bytes=-N: the last N bytes.
            let suffix = Int(parts[1]) ?? .max
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)..<size)
        }
        guard let first = Int(parts[0]), first < size else { return .unsatisfiable }
        let last = parts[1].isEmpty ? Int.max : Int(parts[1]) ?? .max
        guard last >= first else { return .whole }
        return .partial(first..<(last >= size - 1 ? size : last + 1))
    }

    /// The headers a `206` or `416` answer carries for it; none for the whole representation.
    func headers(size: Int) -> HTTPFields {
        switch self {
        case .whole: [:]
        case .partial(let range):
            [.contentRange: "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)", .contentLength: String(range.count)]
        case .unsatisfiable: [.contentRange: "bytes */\(size)"]
        }
    }
}

extension ByteBuffer {
    /// The readable bytes of `range`, counted from the first readable byte.
    func readableSlice(_ range: Range<Int>) -> ByteBuffer {
        getSlice(at: readerIndex + range.lowerBound, length: range.count)!
    }
}

extension APIError {
    /// A range that starts past the end of `what`, a representation of `size` bytes.
    static func rangeNotSatisfiable(_ what: String, size: Int) -> APIError {
        APIError(
            .rangeNotSatisfiable, code: "request.rangeNotSatisfiable",
            message: "The range asked for lies outside the \(size) bytes of \(what).", headers: ByteRange.unsatisfiable.headers(size: size))
    }
}
