import HTTPTypes
import NIOCore
import Testing

@testable import RichPushServer

@Suite("gzip")
struct GzipTests {
    @Test func anAnswerThatWouldShrinkPastWhatClientsTakeIsSentAsItIs() {
        // AsyncHTTPClient's shared client refuses a body that inflates more than 25 times.
        let repetitive = ByteBuffer(string: String(repeating: #"{"state":"pending","reason":"apns.unreachable"},"#, count: 2000))
        #expect(Gzip.compress(repetitive) == nil)
    }

    @Test func anAnswerOfOrdinaryJSONIsCompressed() throws {
        let items = (0..<200).map {
            #"{"id":\#($0 * 7919 % 100_003),"username":"user\#($0 * 31 % 997)","at":"2026-12-0\#($0 % 9 + 1)T\#($0 % 24):00:00Z"}"#
        }
        let json = ByteBuffer(string: "[" + items.joined(separator: ",") + "]")
        let gzipped = try #require(Gzip.compress(json))
        #expect(gzipped.readableBytes < json.readableBytes / 2)
    }

    @Test(arguments: [("gzip", true), ("gzip;q=0", false), ("br, gzip;q=0.5", true), ("*", true), ("identity", false), ("deflate", false)])
    func acceptEncodingIsReadWithItsWeights(header: String, accepted: Bool) {
        #expect(Gzip.isAccepted(by: [.acceptEncoding: header]) == accepted)
    }
}
