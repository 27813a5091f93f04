import Foundation
import RichPushCore
import Testing

@Suite("The silent push")
struct SilentPushTests {
    @Test func theSilentApnsBodyIsTheTutorials() throws {
        let push = SilentPush(richId: 42, richType: .img, richMessage: "Check this image out!")
        #expect(
            String(decoding: push.apnsPayload(), as: UTF8.self)
                == #"{"aps":{"content-available":1,"sound":""},"richId":"42","richMessage":"Check this image out!","richType":"img"}"#)
    }

    @Test func theAlertStyleIsAMutableAlert() throws {
        let push = SilentPush(richId: 42, richType: .url, richMessage: "Sale", style: .alert)
        let object = try #require(try JSONSerialization.jsonObject(with: push.apnsPayload()) as? [String: Any])
        let aps = try #require(object["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: String])?["body"] == "Sale")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["category"] as? String == "richPush")
        #expect(aps["content-available"] == nil)
        #expect(object["richId"] as? String == "42")
    }

    @Test func theKeysAreAllStrings() {
        #expect(SilentPush(richId: 7, richType: .text, richMessage: "m").keys == ["richId": "7", "richType": "text", "richMessage": "m"])
    }
}
