import Foundation
import GatewayTesting
import Logging
import NIOHTTP1
import TestSupport
import Testing

@testable import RichPushServer

/// `--log-format json`: what a log shipper reads, one JSON object a line.
@Suite("JSON log lines")
struct JSONLogTests {
    @Test func aLineIsOneJSONObjectWithTimeLevelLabelMessageAndNestedMetadata() throws {
        let line = JSONLogHandler.line(
            time: Date(timeIntervalSince1970: 1_796_292_000.25), level: .warning, label: "richpush", message: "hub \"apns\" said\nno",
            metadata: ["richpush.service": "dispatcher", "hub": ["status": "503", "codes": ["a", "b"]], "bell": "\u{7}"])
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2026-12-03T10:00:00.250Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "richpush")
        #expect(object["message"] as? String == "hub \"apns\" said\nno")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["richpush.service"] as? String == "dispatcher")
        #expect((metadata["hub"] as? [String: Any])?["codes"] as? [String] == ["a", "b"])
        #expect(metadata["bell"] as? String == "\u{7}")
    }

    @Test func aLineWithoutMetadataHasNoMetadataKey() throws {
        let line = JSONLogHandler.line(time: .now, level: .info, label: "richpush", message: "started", metadata: [:])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["time", "level", "label", "message"])
    }

    @Test func theGatewayStartedWithLogFormatJSONWritesEveryLineAsJSON() async throws {
        let gateway = try GatewayProcess(extraArguments: ["--log-format", "json"])
        defer { gateway.cleanUp() }
        try await gateway.start()
        _ = try await gateway.request(.GET, "/api/users/me", as: .admin)
        await gateway.terminate(within: .seconds(10))
        let lines = gateway.log.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["message"] is String, "not a JSON log line: \(line)")
        }
    }
}
