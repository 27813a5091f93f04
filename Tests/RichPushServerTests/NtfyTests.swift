import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import NIOCore
import RichPushCore
import TestSupport
import Testing

/// ntfy's publish API as ntfy's docs show it with curl: a message to a topic becomes a notification to the devices
/// tagged `topic:{topic}`, answered in ntfy's shape.
@Suite("ntfy publishing")
struct NtfyTests {
    @Test func aMessagePostedToATopicWithNtfysHeadersReachesTheTopicsDevices() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let answer = try await session.request(
                .post, "/ntfy/sale", as: mark, body: ByteBuffer(string: "Winter sale: 30% off"),
                headers: [HTTPField.Name("Title")!: "Sale", HTTPField.Name("Priority")!: "high", HTTPField.Name("Tags")!: "tada, shopping"])
            #expect(answer.status == .ok)
            let published = try answer.json()
            #expect(published["event"] as? String == "message")
            #expect(published["topic"] as? String == "sale")
            #expect(published["message"] as? String == "Winter sale: 30% off")
            #expect(published["priority"] as? Int == 4)
            let id = try #require((published["id"] as? String).flatMap { Int64($0) })
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: mark).json()
            #expect(info["audience"] as? String == "topic:sale")
            #expect(info["title"] as? String == "Sale")
            #expect(info["richType"] as? String == "text")
            #expect(info["data"] as? [String: String] == ["ntfyPriority": "4", "ntfyTags": "tada,shopping"])
        }
    }

    @Test func ntfysActionsHeaderBecomesTheButtonsAndAnUrgentPriorityATimeSensitivePush() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let answer = try await session.request(
                .post, "/ntfy/home", as: mark, body: ByteBuffer(string: "Garage door open"),
                headers: [
                    HTTPField.Name("Priority")!: "urgent",
                    HTTPField.Name("Actions")!:
                        #"view, Open camera, https://home.example/cam, clear=true; http, Close door, https://api.example/door?x=1, body='{"open": false, "why": "a, b"}'"#,
                ])
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let id = try #require((try answer.json()["id"] as? String).flatMap { Int64($0) })
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: mark).json()
            #expect(info["interruptionLevel"] as? String == "time-sensitive")
            #expect(
                info["actions"] as? [[String: String]] == [
                    ["id": "open-camera", "label": "Open camera", "kind": "open", "url": "https://home.example/cam"],
                    [
                        "id": "close-door", "label": "Close door", "kind": "http", "url": "https://api.example/door?x=1", "method": "POST",
                        "body": #"{"open": false, "why": "a, b"}"#,
                    ],
                ])
        }
    }

    @Test func ntfysJSONActionsBecomeTheButtons() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let answer = try await session.request(
                .post, "/ntfy", as: mark,
                json:
                    #"{"topic":"home","message":"Backup done","actions":[{"action":"view","label":"Logs","url":"https://logs.example/","clear":true}]}"#
            )
            #expect(answer.status == .ok)
            let id = try #require((try answer.json()["id"] as? String).flatMap { Int64($0) })
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: mark).json()
            #expect(info["actions"] as? [[String: String]] == [["id": "logs", "label": "Logs", "kind": "open", "url": "https://logs.example/"]])
        }
    }

    @Test(arguments: [
        "broadcast, Take picture, https://x.example/",
        "http, Open door, https://api.example/door, method=PUT",
        "http, Open door, https://api.example/door, headers.Authorization=Bearer x",
    ])
    func anActionRichpushCannotMakeAsNtfyWouldIsRefused(header: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let answer = try await session.request(
                .post, "/ntfy/home", as: mark, body: ByteBuffer(string: "m"), headers: [HTTPField.Name("Actions")!: header])
            #expect(answer.status == .badRequest)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "ntfy.invalidActions")
        }
    }

    @Test func theJSONFormAtTheRootIsWhereApprisesNtfySchemeSendsIt() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            for path in ["/", "/ntfy"] {
                let answer = try await session.request(
                    .post, path, as: mark, json: #"{"topic":"alerts","message":"Disk full","title":"backup","click":"https://example.com/disk"}"#)
                #expect(answer.status == .ok, "\(path)")
                let id = try #require((try answer.json()["id"] as? String).flatMap { Int64($0) })
                let info = try await session.request(.get, "/api/notifications/\(id)/info", as: mark).json()
                #expect(info["audience"] as? String == "topic:alerts")
                #expect(info["richType"] as? String == "url")
                #expect(info["url"] as? String == "https://example.com/disk")
            }
        }
    }

    @Test func aMembersMessageReachesOnlyHerOwnDevicesWhateverTheTopic() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let answer = try await session.request(.put, "/ntfy/sale", as: alice, body: ByteBuffer(string: "note to self"))
            #expect(answer.status == .ok)
            let id = try #require((try answer.json()["id"] as? String).flatMap { Int64($0) })
            #expect(try await session.request(.get, "/api/notifications/\(id)/info", as: alice).json()["audience"] as? String == "username:alice")
        }
    }

    @Test(arguments: [("/ntfy/s%20p", [:]), ("/ntfy/sale", ["Priority": "9"]), ("/ntfy/sale", ["Priority": "loud"])])
    func aTopicOrPriorityNtfyWouldRefuseIs400AndSendsNothing(path: String, headers: [String: String]) async throws {
        try await TestGateway().run { session in
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            let answer = try await session.request(.post, path, as: .admin, body: ByteBuffer(string: "m"), headers: fields)
            #expect(answer.status == .badRequest)
            let code = try answer.error().code
            #expect(code == "ntfy.invalidTopic" || code == "ntfy.invalidPriority")
            let sent = try await session.request(.get, "/api/notifications", as: .admin).json()["items"] as? [Any]
            #expect(sent?.isEmpty == true)
        }
    }

    @Test func aPublishWithoutCredentialsIs401() async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(.post, "/ntfy/sale", body: ByteBuffer(string: "m"))
            #expect(answer.status == .unauthorized)
        }
    }
}

/// Apprise (PyPI), which speaks ntfy, sending through its own schemes to a real gateway process.
@Suite("Apprise through ntfy")
struct AppriseTests {
    func send(through gateway: GatewayProcess, caFile: String? = nil) async throws -> (status: Int32, output: String) {
        var environment = gateway.scriptEnvironment
        environment["CA_FILE"] = caFile
        return try await SpawnedProcess.run(
            "/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("Tests/clients/apprise_ntfy.py").path], environment: environment)
    }

    @Test func apprisesNtfySchemeReachesATopic() async throws {
        let gateway = try GatewayProcess()
        defer { gateway.cleanUp() }
        try await gateway.start()
        let result = try await send(through: gateway)
        #expect(result.status == 0, "\(result.output)\n--- gateway log ---\n\(gateway.log)")
        #expect(result.output.contains("ntfy:// reached topic:sale"))
    }

    @Test func apprisesNtfysSchemeReachesATopicOverHTTPS() async throws {
        let certificates = try HTTPSTests.Certificates()
        try await HTTPSTests().withHTTPSGateway(certificates) { gateway in
            let result = try await send(through: gateway, caFile: certificates.authority.caFile)
            #expect(result.status == 0, "\(result.output)\n--- gateway log ---\n\(gateway.log)")
            #expect(result.output.contains("ntfys:// reached topic:sale"))
        }
    }
}
