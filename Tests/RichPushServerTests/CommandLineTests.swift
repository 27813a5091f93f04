import Foundation
import GatewayTesting
import NIOHTTP1
import RichPushCore
import TestSupport
import Testing

/// `richpush send` and `richpush status` as scripts run them: the real executable against a running gateway.
@Suite("The send and status commands", .serialized)
struct CommandLineTests {
    let mark = Credentials(username: "mark", password: "mark-password")
    let alice = Credentials(username: "alice", password: "alice-password")

    /// A gateway with marketer mark and member alice, whose direct laptop has its stream open.
    func withGateway(_ body: (GatewayProcess, _ passwordFile: String) async throws -> Void) async throws {
        let gateway = try GatewayProcess()
        defer { gateway.cleanUp() }
        try await gateway.start()
        for (user, role) in [(mark, "marketer"), (alice, "member")] {
            let created = try await gateway.request(
                .POST, "/api/users", as: .admin, json: #"{"username":"\#(user.username)","password":"\#(user.password)","role":"\#(role)"}"#)
            #expect(created.status == 201)
        }
        let registered = try await gateway.request(
            .PUT, "/api/installations/laptop", as: alice, json: #"{"platform":"direct","pushChannel":"laptop"}"#)
        #expect(registered.status == 201)
        let stream = StreamClient(port: gateway.port, user: alice, query: "?installationId=laptop")
        defer { stream.close() }
        try await stream.waitUntilOpen()
        let passwordFile = gateway.dataDirectory.appendingPathComponent("mark-password").path
        try "\(mark.password)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try await body(gateway, passwordFile)
    }

    func richpush(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RICHPUSH_") }
        environment.merge(extra) { _, new in new }
        return try await SpawnedProcess.run(GatewayProcess.executable.path, arguments, environment: environment)
    }

    func sendArguments(_ gateway: GatewayProcess, _ passwordFile: String, to audience: String = "username:alice") -> [String] {
        let logo = repositoryRoot.appendingPathComponent("img/logo.png").path
        return [
            "send", "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile, "--image", logo, "--message", "Winter sale",
            "--to", audience,
        ]
    }

    @Test func sendWithWaitFollowsDeliveryInPlainLinesAndExitsZeroWhenDelivered() async throws {
        try await withGateway { gateway, passwordFile in
            let result = try await richpush(sendArguments(gateway, passwordFile) + ["--expires-in", "1d", "--wait"])
            #expect(result.status == 0, "\(result.output)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("image 1: ") == true)
            // The first line is the state the first poll found: sending, or delivered already on a quick gateway.
            #expect(lines.contains("notification 1 sending to username:alice") || lines.contains("notification 1 delivered to username:alice"))
            #expect(lines.last == "notification 1 delivered: 1 of 1 sent, 0 failed; 0 fetched, 0 displayed, 0 opened, 0 dismissed; reached 0 of 1")
            #expect(!result.output.contains("\r"), "a pipe gets no progress bar")
            let info = try await gateway.request(.GET, "/api/notifications/1/info", as: mark)
            #expect(info.body.contains(#""message":"Winter sale""#))
            #expect(info.body.contains(#""expiresAt":"2"#))
        }
    }

    @Test func onATerminalWaitDrawsAProgressBar() async throws {
        try await withGateway { gateway, passwordFile in
            let command = (sendArguments(gateway, passwordFile) + ["--wait"]).map { "'\($0)'" }.joined(separator: " ")
            let result = try await SpawnedProcess.run(
                "/usr/bin/script", ["-qec", "stty cols 120; '\(GatewayProcess.executable.path)' \(command)", "/dev/null"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("\r\u{1B}[2K"))
            #expect(result.output.contains("notification 1 delivered: 1 of 1 sent"))
        }
    }

    @Test func statusPrintsTheFunnelAndItsJsonFormIsOneDocument() async throws {
        try await withGateway { gateway, passwordFile in
            await #expect(try richpush(sendArguments(gateway, passwordFile) + ["--wait"]).status == 0)
            let status = try await richpush(["status", "1", "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile])
            #expect(status.status == 0)
            #expect(
                status.output == "notification 1 delivered: 1 of 1 sent, 0 failed; 0 fetched, 0 displayed, 0 opened, 0 dismissed; reached 0 of 1\n")
            let json = try await richpush(["status", "1", "--json", "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            #expect(object["state"] as? String == "delivered")
            #expect(object["targeted"] as? Int == 1)
        }
    }

    @Test func exportWritesEveryDeliveryAsCSVToStandardOutput() async throws {
        try await withGateway { gateway, passwordFile in
            await #expect(try richpush(sendArguments(gateway, passwordFile) + ["--wait"]).status == 0)
            let export = try await richpush(["export", "1", "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile])
            #expect(export.status == 0, "\(export.output)")
            let lines = export.output.components(separatedBy: "\r\n")
            #expect(lines.first?.hasPrefix("installationId,owner,platform,") == true)
            #expect(lines.count == 3)
            #expect(lines[1].hasPrefix("laptop,alice,direct,,,sent,,1,"))
        }
    }

    @Test func sendFromATemplateFillsInItsPlaceholdersAndDeliversAtTheLocalTime() async throws {
        try await withGateway { gateway, passwordFile in
            let template = try await gateway.request(
                .POST, "/api/templates", as: mark,
                json: #"{"name":"winter-sale","message":"{{percent}}% off","richType":"text","text":"t","audience":"username:alice"}"#)
            #expect(template.status == 201)
            let result = try await richpush([
                "send", "--template", "winter-sale", "--var", "percent=30", "--at-local", "2000-01-01T09:00:00", "--json", "--wait",
                "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile,
            ])
            #expect(result.status == 0, "\(result.output)")
            let answer = try await gateway.request(.GET, "/api/notifications/1/info", as: mark)
            let info = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            #expect(info["message"] as? String == "30% off")
            #expect(info["deliverAtLocal"] as? String == "2000-01-01T09:00:00")
        }
    }

    @Test func repeatedDataAndLocalizedFlagsEachAddTheirEntry() async throws {
        try await withGateway { gateway, passwordFile in
            let french = gateway.dataDirectory.appendingPathComponent("sale-fr.json").path
            let german = gateway.dataDirectory.appendingPathComponent("sale-de.json").path
            try #"{"message": "Soldes", "title": "Soldes d’hiver"}"#.write(toFile: french, atomically: true, encoding: .utf8)
            try #"{"message": "Schlussverkauf"}"#.write(toFile: german, atomically: true, encoding: .utf8)
            let result = try await richpush([
                "send", "--text", "t", "--message", "Sale", "--to", "username:alice", "--push-style", "alert", "--title", "Winter sale", "--sound",
                "default",
                "--badge", "unread", "--category", "sale", "--thread-id", "winter", "--data", "campaign=w1", "--data",
                "deepLink=shop://sale", "--localized", "fr=\(french)", "--localized", "de=\(german)", "--wait",
                "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile,
            ])
            #expect(result.status == 0, "\(result.output)")
            let answer = try await gateway.request(.GET, "/api/notifications/1/info", as: mark)
            let info = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            #expect(info["data"] as? [String: String] == ["campaign": "w1", "deepLink": "shop://sale"])
            #expect(info["title"] as? String == "Winter sale")
            #expect(info["badge"] as? String == "unread")
            #expect(info["threadId"] as? String == "winter")
            let localizations = try #require(info["localizations"] as? [String: [String: String]])
            #expect(localizations["fr"] == ["message": "Soldes", "title": "Soldes d’hiver"])
            #expect(localizations["de"] == ["message": "Schlussverkauf"])
        }
    }

    @Test func activityStartUpdateAndEndDriveALiveActivityAndAnEndedOneIsRefused() async throws {
        try await withGateway { gateway, passwordFile in
            let connection = ["--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile]
            let started = try await richpush(
                [
                    "activity", "start", "--to", "username:alice", "--attributes-type", "DeliveryAttributes", "--attributes",
                    #"{"orderNumber":"A-17"}"#,
                    "--content-state", #"{"status":"packed"}"#, "--relevance-score", "0.5",
                ] + connection)
            #expect(started.status == 0, "\(started.output)")
            #expect(started.output == "activity 1 started on the iPhones of username:alice\n")
            let updated = try await richpush(
                ["activity", "update", "1", "--content-state", #"{"status":"out for delivery"}"#, "--alert-body", "On its way", "--json"]
                    + connection)
            #expect(updated.status == 0, "\(updated.output)")
            let activity = try #require(try JSONSerialization.jsonObject(with: Data(updated.output.utf8)) as? [String: Any])
            #expect(activity["contentState"] as? [String: String] == ["status": "out for delivery"])
            #expect((activity["alert"] as? [String: String])?["body"] == "On its way")
            let ended = try await richpush(["activity", "end", "1", "--dismiss-at", "2030-01-01T00:00:00Z"] + connection)
            #expect(ended.output == "activity 1 ended\n")
            let again = try await richpush(["activity", "end", "1"] + connection)
            #expect(again.status == 3)
            #expect(again.output.contains("has ended"))
            let notAnObject = try await richpush(["activity", "update", "1", "--content-state", "packed"] + connection)
            #expect(notAnObject.status == 64)
            #expect(notAnObject.output.contains("--content-state must be a JSON object"))
        }
    }

    @Test func exportOfAMissingNotificationExitsThree() async throws {
        try await withGateway { gateway, passwordFile in
            let export = try await richpush(["export", "99", "--server", gateway.baseURL, "--user", "mark", "--password-file", passwordFile])
            #expect(export.status == 3)
            #expect(export.output == "richpush: There is no notification 99.\n")
        }
    }

    @Test func everyFlagHasAnEnvironmentForm() async throws {
        try await withGateway { gateway, passwordFile in
            let result = try await richpush(
                ["send", "--wait"],
                environment: [
                    "RICHPUSH_SERVER": gateway.baseURL, "RICHPUSH_USER": "mark", "RICHPUSH_PASSWORD_FILE": passwordFile,
                    "RICHPUSH_TEXT": "Doors open at nine", "RICHPUSH_MESSAGE": "Tonight", "RICHPUSH_TO": "username:alice", "RICHPUSH_JSON": "1",
                ])
            #expect(result.status == 0, "\(result.output)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            #expect(object["state"] as? String == "delivered")
        }
    }

    @Test func aPartialDeliveryExitsTwo() async throws {
        try await withGateway { gateway, passwordFile in
            _ = try await gateway.request(.PUT, "/api/installations/phone", as: alice, json: #"{"platform":"apns","pushChannel":"a1b2c3d4"}"#)
            let result = try await richpush(sendArguments(gateway, passwordFile) + ["--wait"])
            #expect(result.status == 2, "\(result.output)")
            #expect(result.output.contains("  phone (apns): hub.notConfigured: no hub is configured for platform apns"))
        }
    }

    @Test func aRefusalExitsThreeWithTheGatewaysSentence() async throws {
        try await withGateway { gateway, passwordFile in
            let result = try await richpush(sendArguments(gateway, passwordFile, to: "topic:sale &&"))
            #expect(result.status == 3)
            #expect(
                result.output.hasSuffix(
                    "\nrichpush: The audience is not a valid tag expression: expected a tag, '!' or '(' but the expression ended at character 14.\n"))
            let wrongPassword = gateway.dataDirectory.appendingPathComponent("wrong").path
            try "nope-nope-nope".write(toFile: wrongPassword, atomically: true, encoding: .utf8)
            let unauthorized = try await richpush(["status", "1", "--server", gateway.baseURL, "--user", "mark", "--password-file", wrongPassword])
            #expect(unauthorized.status == 3)
            #expect(unauthorized.output == "richpush: The username or password is wrong.\n")
        }
    }

    @Test func anUnreachableGatewayExitsFour() async throws {
        let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-pw-\(UUID().uuidString)").path
        try "secret".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: passwordFile) }
        let result = try await richpush(["status", "1", "--server", "http://127.0.0.1:9", "--user", "mark", "--password-file", passwordFile])
        #expect(result.status == 4)
        #expect(result.output == "richpush: Cannot reach the gateway at http://127.0.0.1:9: connection refused.\n")
    }

    @Test func usageErrorsExitSixtyFourAndAPasswordIsNeverAFlag() async throws {
        let missing = try await richpush([
            "send", "--server", "http://127.0.0.1:9", "--user", "mark", "--password-stdin", "--text", "t", "--message", "m",
        ])
        #expect(missing.status == 64)
        #expect(missing.output.contains("--to is required (or RICHPUSH_TO, or 'to = …' in the config file)"))
        let password = try await richpush(["send", "--password", "secret", "--server", "http://127.0.0.1:9"])
        #expect(password.status == 64)
        #expect(password.output.contains("Unknown option '--password'"))
        let badId = try await richpush(["status", "0", "--server", "http://127.0.0.1:9"])
        #expect(badId.status == 64)
    }
}
