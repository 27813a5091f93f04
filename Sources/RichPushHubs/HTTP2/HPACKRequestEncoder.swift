import NIOCore

/// One header of a request, and whether it may enter the connection's compression table.
struct HTTP2Header: Sendable {
    var name: String
    var value: String
    /// A header unique to one request (a device path, an apns-id) only pushes out those every request repeats.
    var indexable = true

    init(_ name: String, _ value: String, indexable: Bool = true) {
        self.name = name
        self.value = value
        self.indexable = indexable
    }
}

/// HPACK (RFC 7541) for the requests of one client connection, without Huffman coding.
///
/// NIOHPACK's encoder looks each header up by walking its tables with case-insensitive comparisons, a good part of a
/// push's CPU when every request repeats the same long provider token; here a header already in the table is one
/// hash lookup away from its index.
struct HPACKRequestEncoder {
    /// The size of the table the server's decoder keeps (SETTINGS_HEADER_TABLE_SIZE), at most the 4096 of the start.
    private(set) var maximumTableSize = 4096
    /// A smaller table the server asked for, announced at the start of the next header block (RFC 7541 §4.2).
    private var pendingSizeUpdate: Int?
    /// Entries oldest first, each with its insertion number.
    private var entries = CircularBuffer<(field: HPACKField, number: Int, size: Int)>()
    /// Where each field is: the insertion number of its newest dynamic entry, or minus its static index. One lookup
    /// finds either.
    private var known = HPACKStaticTable.fieldsByNegatedIndex
    private var inserted = 0
    private var tableSize = 0

    /// Follows a new SETTINGS_HEADER_TABLE_SIZE of the server; a client never uses more than the initial 4096.
    mutating func setMaximumTableSize(_ size: Int) {
        let size = min(size, 4096)
        guard size != maximumTableSize else { return }
        maximumTableSize = size
        pendingSizeUpdate = min(pendingSizeUpdate ?? size, size)
        evict(toFit: 0)
    }

    /// Writes the header block of one request: its pseudo-headers, then `headers` and `ownHeader`.
    mutating func encodeRequest(
        method: String, scheme: String, authority: String, path: String, headers: [HTTP2Header], ownHeader: HTTP2Header? = nil,
        into buffer: inout ByteBuffer
    ) {
        if let size = pendingSizeUpdate {
            buffer.writeHPACKInteger(size, prefix: 5, flags: 0x20)
            pendingSizeUpdate = nil
        }
        encode(HTTP2Header(":method", method), into: &buffer)
        encode(HTTP2Header(":scheme", scheme), into: &buffer)
        encode(HTTP2Header(":authority", authority), into: &buffer)
        encode(HTTP2Header(":path", path, indexable: false), into: &buffer)
        for header in headers { encode(header, into: &buffer) }
        if let ownHeader { encode(ownHeader, into: &buffer) }
    }

    private mutating func encode(_ header: HTTP2Header, into buffer: inout ByteBuffer) {
        let nameIndex = HPACKStaticTable.index(ofName: header.name)
        guard header.indexable else {
            // Literal without indexing (§6.2.2).
            return writeLiteral(header, nameIndex: nameIndex, prefix: 4, flags: 0, into: &buffer)
        }
        let field = HPACKField(name: header.name, value: header.value)
        // The newest entry is index 62, just past the static table (§2.3.3).
        if let position = known[field] {
            let index = position < 0 ? -position : HPACKStaticTable.count + 1 + inserted - position
            return buffer.writeHPACKInteger(index, prefix: 7, flags: 0x80)
        }
        let size = header.name.utf8.count + header.value.utf8.count + 32
        guard size <= maximumTableSize else {
            return writeLiteral(header, nameIndex: nameIndex, prefix: 4, flags: 0, into: &buffer)
        }
        // Literal with incremental indexing (§6.2.1).
        writeLiteral(header, nameIndex: nameIndex, prefix: 6, flags: 0x40, into: &buffer)
        evict(toFit: size)
        inserted += 1
        entries.append((field, inserted, size))
        known[field] = inserted
        tableSize += size
    }

    private func writeLiteral(_ header: HTTP2Header, nameIndex: Int?, prefix: Int, flags: UInt8, into buffer: inout ByteBuffer) {
        if let nameIndex {
            buffer.writeHPACKInteger(nameIndex, prefix: prefix, flags: flags)
        } else {
            buffer.writeInteger(flags)
            buffer.writeHPACKString(header.name)
        }
        buffer.writeHPACKString(header.value)
    }

    /// Drops the oldest entries until `size` more bytes fit the table (§4.4).
    private mutating func evict(toFit size: Int) {
        while tableSize + size > maximumTableSize, let oldest = entries.popFirst() {
            tableSize -= oldest.size
            if known[oldest.field] == oldest.number { known[oldest.field] = nil }
        }
    }
}

extension ByteBuffer {
    /// An integer with an N-bit prefix (RFC 7541 §5.1); `flags` fills the bits above the prefix.
    mutating func writeHPACKInteger(_ value: Int, prefix: Int, flags: UInt8) {
        let limit = (1 << prefix) - 1
        guard value >= limit else {
            writeInteger(flags | UInt8(value))
            return
        }
        writeInteger(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            writeInteger(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        writeInteger(UInt8(rest))
    }

    /// A string literal without Huffman coding (§5.2).
    mutating func writeHPACKString(_ string: String) {
        writeHPACKInteger(string.utf8.count, prefix: 7, flags: 0)
        writeString(string)
    }
}

/// A name and value as the compression tables hold them.
struct HPACKField: Hashable {
    var name: String
    var value: String

    /// Hashes the lengths alone: the table holds a few dozen fields, and hashing every byte of a provider token on
    /// each request cost more than the rare equal-length comparisons this leaves to `==`, which for the same shared
    /// string is a pointer comparison.
    func hash(into hasher: inout Hasher) {
        hasher.combine(name.utf8.count)
        hasher.combine(value.utf8.count)
    }
}

/// The static table of RFC 7541 Appendix A.
enum HPACKStaticTable {
    static let entries: [(name: String, value: String)] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"), (":scheme", "http"),
        (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"), (":status", "304"), (":status", "400"),
        (":status", "404"), (":status", "500"), ("accept-charset", ""), ("accept-encoding", "gzip, deflate"), ("accept-language", ""),
        ("accept-ranges", ""), ("accept", ""), ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""),
        ("cache-control", ""), ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
        ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""), ("date", ""), ("etag", ""),
        ("expect", ""), ("expires", ""), ("from", ""), ("host", ""), ("if-match", ""), ("if-modified-since", ""), ("if-none-match", ""),
        ("if-range", ""), ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""), ("location", ""), ("max-forwards", ""),
        ("proxy-authenticate", ""), ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""), ("retry-after", ""),
        ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""), ("transfer-encoding", ""), ("user-agent", ""),
        ("vary", ""), ("via", ""), ("www-authenticate", ""),
    ]

    static var count: Int { entries.count }

    /// The entries with a value, each at minus its index.
    static let fieldsByNegatedIndex: [HPACKField: Int] = Dictionary(
        entries.enumerated().filter { !$0.element.value.isEmpty }.map {
            (HPACKField(name: $0.element.name, value: $0.element.value), -($0.offset + 1))
        },
        uniquingKeysWith: max)
    private static let nameIndexes: [String: Int] = Dictionary(
        entries.enumerated().map { ($0.element.name, $0.offset + 1) }, uniquingKeysWith: min)

    /// The first index of an entry with this name.
    static func index(ofName name: String) -> Int? { nameIndexes[name] }
}
