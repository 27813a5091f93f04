import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

@Suite("Strict JSON decoding")
struct StrictJSONDecoderTests {
    struct Device: Decodable, Equatable {
        var platform: String
        var tags: [String]?
    }

    struct Batch: Decodable, Equatable {
        var name: String
        var count: Int64?
        var urgent: Bool?
        var devices: [Device]
        var data: [String: String]?
    }

    func decode(_ json: String) throws(RequestDecodingError) -> Batch {
        try StrictJSONDecoder().decode(Batch.self, from: Data(json.utf8))
    }

    @Test func aBodyOfKnownFieldsDecodes() throws {
        let batch = try decode(#"{"name":"n","count":3,"urgent":true,"devices":[{"platform":"fcm","tags":["a"]}],"data":{"k":"v"}}"#)
        #expect(batch == Batch(name: "n", count: 3, urgent: true, devices: [Device(platform: "fcm", tags: ["a"])], data: ["k": "v"]))
    }

    @Test func nullOptionalFieldsAreAbsent() throws {
        #expect(try decode(#"{"name":"n","count":null,"devices":[]}"#).count == nil)
    }

    @Test func anUnknownFieldAtTheTopIsNamed() {
        #expect(throws: RequestDecodingError.unknownField(path: "delivrAt")) {
            try decode(#"{"name":"n","devices":[],"delivrAt":"2026-12-01T09:00:00Z"}"#)
        }
    }

    @Test func anUnknownFieldDeepInAnArrayIsNamedByItsPath() {
        #expect(throws: RequestDecodingError.unknownField(path: "devices[1].platfrom")) {
            try decode(#"{"name":"n","devices":[{"platform":"fcm"},{"platform":"apns","platfrom":"x"}]}"#)
        }
    }

    @Test(arguments: [
        (#"{"name":7,"devices":[]}"#, RequestDecodingError.invalidField(path: "name", expected: "a string", found: "number")),
        (
            #"{"name":"n","count":"3","devices":[]}"#,
            .invalidField(path: "count", expected: "an integer from -9223372036854775808 to 9223372036854775807", found: "string")
        ),
        (
            #"{"name":"n","count":1.5,"devices":[]}"#,
            .invalidField(path: "count", expected: "an integer from -9223372036854775808 to 9223372036854775807", found: "number")
        ),
        (#"{"name":"n","urgent":1,"devices":[]}"#, .invalidField(path: "urgent", expected: "a boolean", found: "number")),
        (#"{"name":"n","devices":{}}"#, .invalidField(path: "devices", expected: "an array", found: "object")),
        (#"{"name":"n","devices":["fcm"]}"#, .invalidField(path: "devices[0]", expected: "an object", found: "string")),
        (#"{"name":null,"devices":[]}"#, .invalidField(path: "name", expected: "a string", found: "null")),
        (#"{"name":"n","devices":[],"data":{"k":1}}"#, .invalidField(path: "data.k", expected: "a string", found: "number")),
        (#"["name"]"#, .invalidField(path: "the body", expected: "an object", found: "array")),
    ])
    func aFieldOfTheWrongJSONTypeIsNamedWithTheTypeExpected(json: String, error: RequestDecodingError) {
        #expect(throws: error) { try decode(json) }
    }

    @Test func aMissingFieldIsNamed() {
        #expect(throws: RequestDecodingError.missingField(path: "devices")) { try decode(#"{"name":"n"}"#) }
    }

    @Test(arguments: ["", "{", #"{"name":'n'}"#, "nul"])
    func malformedJSONIsMalformed(json: String) {
        #expect(throws: RequestDecodingError.malformed) { try decode(json) }
    }

    struct Registration: Decodable, Equatable {
        var platforms: [Platform]
        var style: PushStyle?
    }

    @Test func namesOfAnEnumerationsCasesDecodeAsItsCases() throws {
        let registration = try StrictJSONDecoder().decode(Registration.self, from: Data(#"{"platforms":["fcm","direct"],"style":"alert"}"#.utf8))
        #expect(registration == Registration(platforms: [.fcm, .direct], style: .alert))
    }

    @Test func aNameNoCaseHasIsRefusedNamingTheFieldAndTheCases() {
        #expect(
            throws: RequestDecodingError.notAChoice(path: "platforms[1]", field: "platforms", choices: ["apns", "fcm", "wns", "webpush", "direct"])
        ) {
            try StrictJSONDecoder().decode(Registration.self, from: Data(#"{"platforms":["fcm","pager"]}"#.utf8))
        }
    }

    @Test func aCaseGivenAsAnotherJSONTypeIsAFieldOfTheWrongType() {
        #expect(throws: RequestDecodingError.invalidField(path: "style", expected: "a string", found: "number")) {
            try StrictJSONDecoder().decode(Registration.self, from: Data(#"{"platforms":[],"style":1}"#.utf8))
        }
    }
}
