import NIOCore
import NIOHPACK
import Testing

@testable import RichPushHubs

@Suite("Answer headers in HPACK")
struct HPACKResponseDecoderTests {
    /// Header blocks as a server's HPACK encoder (NIOHPACK's, with Huffman coding) writes them on one connection.
    struct Server {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)

        mutating func block(_ fields: [(String, String, HPACKIndexing)]) throws -> ByteBuffer {
            var headers = HPACKHeaders()
            for (name, value, indexing) in fields { headers.add(name: name, value: value, indexing: indexing) }
            var block = ByteBuffer()
            try encoder.encode(headers: headers, to: &block)
            return block
        }
    }

    var decoder = HPACKResponseDecoder(maximumHeaderListSize: 64 * 1024)

    @Test mutating func aSuccessIsReadAsItsStatusAlone() throws {
        var server = Server()
        var block = try server.block([
            (":status", "200", .indexable), ("apns-id", "7b4e1f0c-3d8a-8b2e-9c1f-0a4b6d8e2f13", .nonIndexable), ("server", "nginx", .indexable),
        ])
        let headers = try decoder.decode(&block)
        #expect(headers.status == 200)
        #expect(headers.fields.isEmpty)
        #expect(block.readableBytes == 0)
    }

    @Test mutating func aRefusalKeepsEveryFieldWithItsValue() throws {
        var server = Server()
        var block = try server.block([
            (":status", "429", .nonIndexable), ("retry-after", "120", .neverIndexed), ("apns-id", "id-1", .indexable),
            ("content-type", "application/json", .nonIndexable),
        ])
        let headers = try decoder.decode(&block)
        #expect(headers.status == 429)
        #expect(headers.fields.map { "\($0.name): \($0.value)" } == ["retry-after: 120", "apns-id: id-1", "content-type: application/json"])
    }

    @Test mutating func fieldsTheServerIndexedAreFoundAgainInLaterAnswers() throws {
        var server = Server()
        for number in 0..<200 {
            // Answers that are not successes keep their fields; the server indexes every one, so the table fills and
            // evicts as the server's does.
            let status = number % 3 == 0 ? "503" : "410"
            var block = try server.block([
                (":status", status, .indexable), ("apns-id", "id-\(number % 40)", .indexable),
                ("x-reason", String(repeating: "r", count: number % 90), .indexable),
            ])
            let headers = try decoder.decode(&block)
            #expect(headers.status == Int(status))
            #expect(headers.fields.map(\.value) == ["id-\(number % 40)", String(repeating: "r", count: number % 90)])
        }
    }

    @Test mutating func aServerShrinkingItsTableIsFollowed() throws {
        var server = Server()
        var first = try server.block([(":status", "400", .indexable), ("x-one", "1", .indexable)])
        _ = try decoder.decode(&first)
        try server.encoder.setDynamicTableSize(0)
        var second = try server.block([(":status", "400", .indexable), ("x-one", "1", .indexable)])
        #expect(try decoder.decode(&second).fields.map(\.value) == ["1"])
    }

    @Test func huffmanCodedTextOfEveryPrintableCharacterAndUTF8DecodesExactly() throws {
        let text = String((32...126).map { Character(Unicode.Scalar(UInt8($0))) }) + "é€🙂"
        var server = Server()
        var decoder = HPACKResponseDecoder(maximumHeaderListSize: 64 * 1024)
        var block = try server.block([(":status", "500", .indexable), ("x-text", text, .nonIndexable)])
        #expect(try decoder.decode(&block).fields.first?.value == text)
    }

    /// Control characters and bytes above ASCII have the longest codes, up to 30 bits, past the one-byte table.
    @Test func huffmanCodedTextOfEveryControlCharacterAndLongUTF8DecodesExactly() throws {
        let text = String((1...31).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}ÿ\u{7FF}\u{FFFD}\u{10FFFF}" + "a"
        var server = Server()
        var decoder = HPACKResponseDecoder(maximumHeaderListSize: 64 * 1024)
        var block = try server.block([(":status", "500", .indexable), ("x-text", text, .nonIndexable)])
        #expect(try decoder.decode(&block).fields.first?.value == text)
    }

    @Test(
        arguments: [
            [0xBE],  // index 62 with an empty dynamic table
            [0x08, 0x03, 0x61],  // a literal's value cut short
            [0x08, 0x81, 0x00],  // a Huffman string padded with zeros
            [0x08, 0x84, 0xFF, 0xFF, 0xFF, 0xFF],  // the end-of-string code inside a Huffman string
            [0x08, 0x82, 0x1F, 0xFF],  // "a" (5 bits) padded with 11 bits
            [0x3F, 0xE2, 0x1F],  // a table of 4097 bytes, more than the client allows
        ] as [[UInt8]])
    mutating func aMalformedBlockIsACompressionError(_ bytes: [UInt8]) {
        var block = ByteBuffer(bytes: bytes)
        #expect(throws: HTTP2ConnectionError.self) { try decoder.decode(&block) }
    }
}
