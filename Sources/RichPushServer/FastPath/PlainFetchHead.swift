import HTTPTypes

/// The head of a `GET` payload fetch read straight from a plain connection's bytes, for ``PayloadFetchReader``.
///
/// Hand-written rather than NIO's decoder because of the fetch every device makes after every push: llhttp and NIO's
/// `HTTPDecoder` make a string of every header's name and value, a header list and a request head, and pass it through
/// four handlers, about a quarter of the fetch's user-space time. This reads only a strict subset of HTTP/1.1
/// (RFC 9112) and leaves everything else to the decoder: the request line `GET <target> HTTP/1.1`, fields of token
/// names and visible-ASCII values each ending in CRLF, and nothing that frames a body or changes the connection
/// (`Content-Length`, `Transfer-Encoding`, `TE`, `Upgrade`, `Expect`, a `Connection` other than `keep-alive`), nor a
/// second `Authorization`, `Range` or `If-Range`. A head this reads means to the decoder what it means here, as a test
/// holds it to for every change of one byte of a fetch.
struct PlainFetchHead {
    /// The bytes the head takes, its last CRLF included.
    let length: Int
    let fetch: FastPathFetch

    /// What a connection's bytes start with.
    enum Reading {
        case fetch(PlainFetchHead)
        /// Something else, or a head not all there yet, or one longer than `limits` let: the decoder's to read.
        case other
    }

    /// The limits of the decoder behind: a head past them is the decoder's to refuse.
    struct Limits {
        var headLength: Int
        var fieldCount: Int
    }

    static func read(_ bytes: UnsafeRawBufferPointer, limits: Limits) -> Reading {
        var reader = ByteReader(bytes: bytes, end: min(bytes.count, limits.headLength))
        guard reader.skip("GET ") else { return .other }
        let targetStart = reader.index
        reader.skip(while: { $0 > 0x20 && $0 < 0x7F })
        let target = targetStart..<reader.index
        guard !target.isEmpty, reader.skip(" HTTP/1.1\r\n") else { return .other }

        var authorization: String?
        var ifNoneMatch: [String] = []
        var range: String?
        var ifRange: String?
        var fields = 0
        while !reader.skip("\r\n") {
            fields += 1
            guard fields <= limits.fieldCount, let (name, value) = reader.field() else { return .other }
            switch name {
            case .authorization:
                guard authorization == nil else { return .other }
                authorization = reader.string(value)
            case .ifNoneMatch:
                ifNoneMatch.append(reader.string(value))
            case .range:
                guard range == nil else { return .other }
                range = reader.string(value)
            case .ifRange:
                guard ifRange == nil else { return .other }
                ifRange = reader.string(value)
            case .connection:
                guard reader.equalsIgnoringCase(value, "keep-alive") else { return .other }
            case .framing:
                return .other
            case .other:
                break
            }
        }
        let conditions = FetchConditions(
            ifNoneMatch: ifNoneMatch.isEmpty ? nil : ifNoneMatch.joined(separator: ", "), range: range, ifRange: ifRange)
        guard
            let fetch = FastPathFetch(
                method: .get, target: UnsafeRawBufferPointer(rebasing: bytes[target]), authorization: authorization,
                keepsConnection: true, hasBody: false, conditions: { conditions })
        else { return .other }
        return .fetch(PlainFetchHead(length: reader.index, fetch: fetch))
    }
}

/// The fields ``PlainFetchHead`` reads or refuses; every other field is passed over.
private enum FieldName {
    case authorization, ifNoneMatch, range, ifRange, connection
    /// A field that frames a body or changes the connection.
    case framing
    case other

    static let names: [(name: StaticString, field: FieldName)] = [
        ("authorization", .authorization), ("if-none-match", .ifNoneMatch), ("range", .range), ("if-range", .ifRange),
        ("connection", .connection), ("content-length", .framing), ("transfer-encoding", .framing), ("upgrade", .framing),
        ("expect", .framing), ("te", .framing),
    ]
}

/// A cursor over a head's bytes; every read stops at `end`, so a head cut short or too long reads as not there.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    let end: Int
    var index = 0

    mutating func skip(_ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        guard end - index >= count,
            bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: expected.utf8Start, count: count))
        else { return false }
        index += count
        return true
    }

    mutating func skip(while matches: (UInt8) -> Bool) {
        while index < end, matches(bytes[index]) { index += 1 }
    }

    /// A field line, `name: value` ending in CRLF, with the spaces and tabs before the value left out; those after it
    /// are kept, as NIO's decoder keeps them.
    mutating func field() -> (FieldName, Range<Int>)? {
        let nameStart = index
        skip(while: Self.isTokenByte)
        let name = nameStart..<index
        guard !name.isEmpty, index < end, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skip(while: Self.isSpace)
        let valueStart = index
        skip(while: { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 })
        let value = valueStart..<index
        guard skip("\r\n") else { return nil }
        let field = FieldName.names.first { equalsIgnoringCase(name, $0.name) }?.field ?? .other
        return (field, value)
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Whether the bytes in `range` are `lowercase` in any case; `lowercase` holds only lowercase letters and `-`.
    func equalsIgnoringCase(_ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        // Setting bit 5 lowercases a letter and keeps `-`; no other visible byte becomes either.
        for offset in 0..<range.count where bytes[range.lowerBound + offset] | 0x20 != expected[offset] { return false }
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
