import NIOCore
import NIOHPACK
import Testing

@testable import RichPushHubs

@Suite("Request headers in HPACK")
struct HPACKRequestEncoderTests {
    let token = "bearer " + String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 8)

    func headers(device: Int, collapse: Int = 1) -> [HTTP2Header] {
        [
            HTTP2Header("authorization", token), HTTP2Header("apns-topic", "com.example.app"),
            HTTP2Header("apns-collapse-id", "richpush-\(collapse)"), HTTP2Header("content-type", "application/json"),
            HTTP2Header("apns-id", "id-\(device)", indexable: false),
        ]
    }

    /// What NIOHPACK's decoder, following the same connection, reads out of each block.
    func decodedBlocks(_ requests: [[HTTP2Header]], tableSizes: [Int: Int] = [:]) throws -> [[String]] {
        var encoder = HPACKRequestEncoder()
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        return try requests.enumerated().map { number, headers in
            if let size = tableSizes[number] { encoder.setMaximumTableSize(size) }
            var block = ByteBuffer()
            encoder.encodeRequest(
                method: "POST", scheme: "https", authority: "api.push.apple.com", path: "/3/device/\(number)", headers: headers, into: &block)
            return try decoder.decodeHeaders(from: &block).map { "\($0.name): \($0.value)" }
        }
    }

    func expected(_ number: Int, _ headers: [HTTP2Header]) -> [String] {
        [":method: POST", ":scheme: https", ":authority: api.push.apple.com", ":path: /3/device/\(number)"]
            + headers.map { "\($0.name): \($0.value)" }
    }

    @Test func everyBlockDecodesToTheRequestsHeadersInOrder() throws {
        let requests = (0..<50).map { headers(device: $0, collapse: $0 / 10) }
        let decoded = try decodedBlocks(requests)
        for (number, headers) in requests.enumerated() { #expect(decoded[number] == expected(number, headers)) }
    }

    @Test func repeatedHeadersShrinkToTheirTableIndexes() throws {
        var encoder = HPACKRequestEncoder()
        var first = ByteBuffer()
        var second = ByteBuffer()
        encoder.encodeRequest(method: "POST", scheme: "https", authority: "a", path: "/1", headers: headers(device: 1), into: &first)
        encoder.encodeRequest(method: "POST", scheme: "https", authority: "a", path: "/2", headers: headers(device: 2), into: &second)
        #expect(first.readableBytes > token.utf8.count)
        // Seven fields are one index byte each; only the path and the apns-id travel as text again.
        #expect(second.readableBytes == 7 + (2 + "/2".utf8.count) + (3 + "apns-id".utf8.count + "id-2".utf8.count))
    }

    @Test func aTableTooSmallForEveryHeaderEvictsTheOldestAndStillDecodes() throws {
        let requests = (0..<30).map { headers(device: $0, collapse: $0) }
        let decoded = try decodedBlocks(requests, tableSizes: [0: 256])
        for (number, headers) in requests.enumerated() { #expect(decoded[number] == expected(number, headers)) }
    }

    @Test func aServerThatShrinksItsTableMidConnectionIsToldBeforeTheNextBlock() throws {
        let requests = (0..<20).map { headers(device: $0) }
        let decoded = try decodedBlocks(requests, tableSizes: [5: 0, 12: 4096])
        for (number, headers) in requests.enumerated() { #expect(decoded[number] == expected(number, headers)) }
    }

    @Test(arguments: [0, 30, 126, 127, 128, 300, 16_383, 70_000])
    func integersFollowThePrefixCoding(_ value: Int) throws {
        var buffer = ByteBuffer()
        buffer.writeHPACKInteger(value, prefix: 5, flags: 0xE0)
        let first = buffer.readInteger(as: UInt8.self) ?? 0
        #expect(first & 0xE0 == 0xE0)
        var decoded = Int(first & 0x1F)
        if decoded == 31 {
            var shift = 0
            while let byte = buffer.readInteger(as: UInt8.self) {
                decoded += Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
        }
        #expect(decoded == value)
        #expect(buffer.readableBytes == 0)
    }
}
