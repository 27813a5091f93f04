import HTTPTypes
import Testing

@testable import RichPushServer

/// `Range` read as RFC 9110 and nginx read it, for a representation of 1,000 bytes tagged `"v1"`.
@Suite("Byte ranges")
struct ByteRangeTests {
    func range(_ header: String?, ifRange: String? = nil, size: Int = 1000) -> ByteRange {
        ByteRange(range: header, ifRange: ifRange, size: size, entityTag: "\"v1\"")
    }

    @Test(arguments: [
        ("bytes=0-99", 0..<100), ("bytes=900-", 900..<1000), ("bytes=-100", 900..<1000), ("bytes=990-5000", 990..<1000),
        ("bytes=-5000", 0..<1000), ("bytes=999-999", 999..<1000), ("BYTES=5-9", 5..<10), ("bytes= 5-9 ", 5..<10),
    ])
    func oneRangeThatStartsInsideIsThatPartOfTheBytes(header: String, expected: Range<Int>) {
        #expect(range(header) == .partial(expected))
    }

    @Test(arguments: ["bytes=1000-", "bytes=99999999-", "bytes=-0", "bytes=99999999999999999999999-"])
    func aRangeStartingPastTheEndIsUnsatisfiable(header: String) {
        #expect(range(header) == .unsatisfiable)
        #expect(range(header).headers(size: 1000)[.contentRange] == "bytes */1000")
    }

    @Test(arguments: ["bytes=5-2", "bytes=a-b", "bytes=-", "items=0-5", "bytes=0-1,5-9", "bytes=1--2"])
    func aRangeThatDoesNotParseOrAsksForSeveralMeansTheWhole(header: String) {
        #expect(range(header) == .whole)
    }

    @Test func anIfRangeNamingAnotherVersionMeansTheWhole() {
        #expect(range("bytes=0-9", ifRange: "\"v0\"") == .whole)
        #expect(range("bytes=0-9", ifRange: "\"v1\"") == .partial(0..<10))
    }

    @Test func aPartTellsItsPlaceAndLength() {
        let headers = range("bytes=-100").headers(size: 1000)
        #expect(headers[.contentRange] == "bytes 900-999/1000")
        #expect(headers[.contentLength] == "100")
    }

    @Test func anEmptyRepresentationHasNoSatisfiableRange() {
        #expect(range("bytes=-5", size: 0) == .unsatisfiable)
        #expect(range("bytes=0-", size: 0) == .unsatisfiable)
    }
}
