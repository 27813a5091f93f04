package import NIOCore
import NIOHTTP2

/// The header fields of one answer, as far as they are read.
package struct HPACKAnswerHeaders {
    var status: Int?
    /// Every field but the pseudo-headers, unless the answer is a success: nothing after a 2xx status is kept.
    var fields: [(name: String, value: String)] = []
}

/// HPACK (RFC 7541) for the answers of one client connection.
///
/// Hubs read an answer's headers only when it is not a success, and a success is nearly every answer of a fan-out:
/// once a 2xx status is read, the literal values that follow (an echoed apns-id, a date) are stepped over without
/// being decoded into strings, which was most of what decoding an answer cost. What enters the dynamic table is
/// always decoded, so the table stays in step with the server's.
package struct HPACKResponseDecoder {
    /// The table size this client allows the server (the SETTINGS default; the client never announces another).
    static let maximumTableSize = 4096
    let maximumHeaderListSize: Int
    private var allowedTableSize = maximumTableSize
    /// Newest entry first, as the dynamic table's indexes count (§2.3.3).
    private var entries = CircularBuffer<(field: HPACKField, size: Int)>()
    private var tableSize = 0

    package init(maximumHeaderListSize: Int) {
        self.maximumHeaderListSize = maximumHeaderListSize
    }

    /// Decodes one whole header block. `keep` is false for a block of an answer already known to be a success.
    package mutating func decode(_ block: inout ByteBuffer, keep: Bool = true) throws(HTTP2ConnectionError) -> HPACKAnswerHeaders {
        var headers = HPACKAnswerHeaders()
        var keep = keep
        var listSize = 0
        var fieldsSeen = false
        while block.readableBytes > 0 {
            let first = block.getInteger(at: block.readerIndex, as: UInt8.self)!
            let field: HPACKField?
            switch first {
            case 0x80...:
                // Indexed field (§6.1).
                field = try self.field(at: try block.readHPACKInteger(prefix: 7))
            case 0x40...:
                // Literal with incremental indexing (§6.2.1): decoded whatever it is, as the table must hold it.
                let name = try literalName(&block, prefix: 6)
                let decoded = HPACKField(name: name, value: try Self.readString(&block))
                insert(decoded)
                field = decoded
            case 0x20...:
                // Dynamic table size update (§6.3), only before the first field.
                let size = try block.readHPACKInteger(prefix: 5)
                guard !fieldsSeen, size <= Self.maximumTableSize else {
                    throw HTTP2ConnectionError(code: .compressionError, reason: "a table size update of \(size) bytes")
                }
                allowedTableSize = size
                evict(toFit: 0)
                continue
            default:
                // Literal without indexing or never indexed (§6.2.2, §6.2.3).
                let name = try literalName(&block, prefix: 4)
                if keep {
                    field = HPACKField(name: name, value: try Self.readString(&block))
                } else {
                    listSize += try Self.skipString(&block)
                    field = nil
                }
            }
            fieldsSeen = true
            guard let field else { continue }
            listSize += field.name.utf8.count + field.value.utf8.count + 32
            guard listSize <= maximumHeaderListSize else {
                throw HTTP2ConnectionError(code: .enhanceYourCalm, reason: "a header list larger than the client accepts")
            }
            if field.name == ":status" {
                guard let status = Int(field.value) else {
                    throw HTTP2ConnectionError(code: .protocolError, reason: "a status of \(field.value)")
                }
                headers.status = status
                if (200..<300).contains(status) { keep = false }
            } else if keep, !field.name.hasPrefix(":") {
                headers.fields.append((field.name, field.value))
            }
        }
        return headers
    }

    private func field(at index: Int) throws(HTTP2ConnectionError) -> HPACKField {
        let entries = HPACKStaticTable.entries
        if index >= 1, index <= entries.count {
            return HPACKField(name: entries[index - 1].name, value: entries[index - 1].value)
        }
        let dynamic = index - entries.count - 1
        guard dynamic >= 0, dynamic < self.entries.count else {
            throw HTTP2ConnectionError(code: .compressionError, reason: "a header index \(index) beyond the tables")
        }
        return self.entries[self.entries.index(self.entries.startIndex, offsetBy: dynamic)].field
    }

    private func literalName(_ block: inout ByteBuffer, prefix: Int) throws(HTTP2ConnectionError) -> String {
        let index = try block.readHPACKInteger(prefix: prefix)
        return index == 0 ? try Self.readString(&block) : try field(at: index).name
    }

    private mutating func insert(_ field: HPACKField) {
        let size = field.name.utf8.count + field.value.utf8.count + 32
        evict(toFit: size)
        // An entry larger than the whole table empties it and is not added (§4.4).
        guard size <= allowedTableSize else { return }
        entries.prepend((field, size))
        tableSize += size
    }

    private mutating func evict(toFit size: Int) {
        while tableSize + size > allowedTableSize, let oldest = entries.popLast() {
            tableSize -= oldest.size
        }
    }

    /// A string literal (§5.2), Huffman-coded or not.
    private static func readString(_ block: inout ByteBuffer) throws(HTTP2ConnectionError) -> String {
        guard let first = block.getInteger(at: block.readerIndex, as: UInt8.self) else { throw truncated }
        let length = try block.readHPACKInteger(prefix: 7)
        guard let bytes = block.readSlice(length: length) else { throw truncated }
        guard first & 0x80 != 0 else { return String(buffer: bytes) }
        return try HPACKHuffman.decode(bytes)
    }

    /// Steps over a string literal; answers its length.
    private static func skipString(_ block: inout ByteBuffer) throws(HTTP2ConnectionError) -> Int {
        let length = try block.readHPACKInteger(prefix: 7)
        guard block.readableBytes >= length else { throw truncated }
        block.moveReaderIndex(forwardBy: length)
        return length
    }

    static let truncated = HTTP2ConnectionError(code: .compressionError, reason: "a header block cut short")
}

extension ByteBuffer {
    /// An integer with an N-bit prefix (RFC 7541 §5.1), its first byte's other bits ignored.
    mutating func readHPACKInteger(prefix: Int) throws(HTTP2ConnectionError) -> Int {
        guard let first = readInteger(as: UInt8.self) else { throw HPACKResponseDecoder.truncated }
        let limit = (1 << prefix) - 1
        var value = Int(first) & limit
        guard value == limit else { return value }
        var shift = 0
        while true {
            guard let byte = readInteger(as: UInt8.self) else { throw HPACKResponseDecoder.truncated }
            guard shift <= 28 else { throw HTTP2ConnectionError(code: .compressionError, reason: "an integer too large") }
            value += Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { return value }
        }
    }
}

/// The canonical Huffman code of RFC 7541 Appendix B. A code of 8 bits or fewer (every letter, digit and `-`, so
/// all of an `apns-id`) is found with one look into a table by the next byte; a longer one by comparing the next 30
/// bits with where each length's codes end. Every answer's `apns-id` enters the dynamic table and is decoded: a bit
/// at a time, that was about 2% of the machine's time in an APNs fan-out.
enum HPACKHuffman {
    /// The code length of each symbol, 0 to 255 and EOS (256); codes follow from lengths, as the code is canonical.
    private static let lengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    ]

    /// Symbols by code length, then symbol; per length, where its symbols start, its first code and the end of its
    /// codes as the first of 30 bits (a code of that length starts the bits exactly when they are below it and no
    /// shorter code does).
    private static let (symbols, firstSymbol, firstCode, limit): ([UInt16], [Int], [UInt32], [UInt32]) = {
        let symbols = (0..<lengths.count).sorted { (lengths[$0], $0) < (lengths[$1], $1) }
        var count = [UInt32](repeating: 0, count: 31)
        for symbol in symbols { count[Int(lengths[symbol])] += 1 }
        var firstSymbol = [Int](repeating: 0, count: 31)
        var firstCode = [UInt32](repeating: 0, count: 31)
        var limit = [UInt32](repeating: 0, count: 31)
        var code: UInt32 = 0
        var position = 0
        for length in 1...30 {
            firstSymbol[length] = position
            firstCode[length] = code
            limit[length] = (code + count[length]) << (30 - length)
            code = (code + count[length]) << 1
            position += Int(count[length])
        }
        return (symbols.map { UInt16($0) }, firstSymbol, firstCode, limit)
    }()

    /// For each value of the next 8 bits: the symbol whose code starts them and the code's length in the low 4 bits
    /// (`symbol << 4 | length`), or 0 when the code is longer than 8 bits.
    private static let byteTable: [UInt16] = (0..<256).map { byte in
        let bits = UInt32(byte) << 22
        guard let length = (5...8).first(where: { bits < limit[$0] }) else { return 0 }
        return symbols[symbol(of: bits, length: length)] << 4 | UInt16(length)
    }

    private static func symbol(of bits: UInt32, length: Int) -> Int {
        firstSymbol[length] + Int(bits >> (30 - length) - firstCode[length])
    }

    static func decode(_ bytes: ByteBuffer) throws(HTTP2ConnectionError) -> String {
        // The shortest code is 5 bits. Invalid UTF-8 is repaired, as `String(decoding:as:)` does.
        var failure: HTTP2ConnectionError?
        let text = bytes.withUnsafeReadableBytes { input in
            String(unsafeUninitializedCapacity: input.count * 8 / 5) { output in
                do throws(HTTP2ConnectionError) {
                    return try decode(input, into: output)
                } catch {
                    failure = error
                    return 0
                }
            }
        }
        if let failure { throw failure }
        return text
    }

    /// Decodes `input` into `output`, which has room for it; returns how many bytes it wrote.
    private static func decode(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>
    ) throws(HTTP2ConnectionError) -> Int {
        let (byteTable, limit, symbols) = (Self.byteTable, Self.limit, Self.symbols)
        var written = 0
        // The bits not decoded yet, the last read in the lowest.
        var window: UInt64 = 0
        var count = 0
        var read = 0
        while true {
            while read < input.count, count <= 56 {
                window = window << 8 | UInt64(input[read])
                read += 1
                count += 8
            }
            guard count > 0 else { break }
            // The next 30 bits; past the end of the string, ones, which only the end-of-string code is made of.
            let next =
                count >= 30
                ? UInt32(truncatingIfNeeded: window >> (count - 30)) & 0x3FFF_FFFF
                : UInt32(truncatingIfNeeded: window << (30 - count)) & 0x3FFF_FFFF | (1 << (30 - count) - 1)
            let entry = byteTable[Int(next >> 22)]
            let length: Int
            let symbol: Int
            if entry != 0 {
                length = Int(entry & 0xF)
                symbol = Int(entry >> 4)
            } else {
                var longer = 9
                while next >= limit[longer] {
                    longer += 1
                    guard longer <= 30 else { throw invalid("a code no symbol has") }
                }
                length = longer
                symbol = Int(symbols[Self.symbol(of: next, length: longer)])
            }
            // A code that runs past the end of the string is the padding's.
            guard length <= count else { break }
            guard symbol < 256 else { throw invalid("the end-of-string symbol inside a string") }
            output[written] = UInt8(symbol)
            written += 1
            count -= length
            window &= (1 << count) - 1
        }
        // What is left must be padding: fewer than 8 bits, all ones (the start of EOS) (§5.2).
        guard count < 8, window == (1 << count) - 1 else { throw invalid("padding that is not the end-of-string code") }
        return written
    }

    private static func invalid(_ reason: String) -> HTTP2ConnectionError {
        HTTP2ConnectionError(code: .compressionError, reason: "an invalid Huffman string: \(reason)")
    }
}
