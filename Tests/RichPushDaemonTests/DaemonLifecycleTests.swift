import Foundation
import TestSupport
import Testing

@testable import RichPushDaemon

/// The daemon against a real gateway process, with alerts on standard output (no desktop): restarts, dead
/// connections, signals and `--once`.
extension EndToEndTests {
    @Suite("The daemon through restarts, silence and signals")
    struct DaemonLifecycleTests {
        struct Scene {
            let gateway: SpawnedGateway
            let alice: (String, String)
            let daemon: DaemonProcess

            init() async throws {
                gateway = try await SpawnedGateway()
                try await gateway.start()
                alice = try gateway.createMember("alice")
                daemon = try DaemonProcess(gateway: gateway, user: alice)
            }

            func send(_ count: Int, from first: Int = 1) throws -> [Int64] {
                try (first..<first + count).map { try gateway.sendText("body \($0)", message: "note \($0)", to: alice.0) }
            }

            func stop() {
                daemon.stop()
                gateway.kill()
            }
        }

        @Test func withoutADesktopAlertsArePrintedAndTheDaemonKeepsRunning() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil)
            #expect(scene.daemon.log.contains("no desktop notifications; alerts go to standard output"))
            let image = try scene.gateway.sendImage(message: "Check this image out!", to: scene.alice.0)
            let text = try scene.gateway.sendText("Doors open at nine.", message: "Opening hours", to: scene.alice.0)
            try await scene.daemon.waitUntilShown([image, text])
            let lines = scene.daemon.output.split(separator: "\n")
            let imagePath = scene.daemon.home.path + "/.cache/richpush/\(image).png"
            #expect(lines.contains("richpush \(image) [img] New image: Check this image out! | image \(imagePath)"))
            #expect(lines.contains("richpush \(text) [text] New message: Opening hours | Doors open at nine."))
            #expect(scene.daemon.process?.isRunning == true)
        }

        @Test func aSessionBusWithoutANotificationServerMeansAlertsArePrinted() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let desktop = try await TestDesktop(notificationServer: false)
            defer { desktop.stop() }
            try await scene.daemon.start(desktop: desktop)
            #expect(scene.daemon.log.contains("no desktop notifications; alerts go to standard output"))
            let id = try scene.gateway.sendText("Doors open at nine.", message: "Opening hours", to: scene.alice.0)
            try await scene.daemon.waitUntilShown([id])
            #expect(scene.daemon.printed == [id])
        }

        @Test func theTagsAreRegisteredAndACampaignForThemArrives() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil, extraArguments: ["--tags", "topic:sale, lang:en"])
            let id = try String(contentsOfFile: scene.daemon.home.path + "/.local/state/richpush/installation-id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let installation = SpawnedGateway.object(try scene.gateway.request(.get, "/api/installations/\(id)", as: scene.alice).body)
            #expect(installation?["platform"] as? String == "direct")
            #expect(installation?["pushChannel"] as? String == id)
            let tags = Set(installation?["tags"] as? [String] ?? [])
            #expect(tags.isSuperset(of: ["topic:sale", "lang:en"]))
            let campaign = try scene.gateway.send(
                #"{"message":"Winter sale","richType":"text","text":"30% off","audience":"topic:sale && !lang:fr"}"#)
            try await scene.daemon.waitUntilShown([campaign])
        }

        @Test func theConfigFileAloneIsEnoughToRun() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let home = scene.daemon.home.path
            _ = try scene.daemon.home.write(
                ".config/richpush/richpushd.conf", "server = \(scene.gateway.baseURL)\nuser = alice\npassword-file = \(home)/password\n")
            let first = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", ["--once"], environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
            #expect(first.status == 0, "\(first.output)")
            let id = try scene.gateway.sendText("Doors open at nine.", message: "Opening hours", to: "alice")
            let second = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", ["--once"], environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
            #expect(second.status == 0)
            #expect(second.output.contains("richpush \(id) [text] New message: Opening hours | Doors open at nine."))
        }

        @Test func anAPITokenStandsInForUserAndPassword() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let created = SpawnedGateway.object(try scene.gateway.request(.post, "/api/tokens", as: scene.alice, json: #"{"name":"desktop"}"#).body)
            let home = scene.daemon.home.path
            _ = try scene.daemon.home.write("token", try #require(created?["token"] as? String) + "\n")
            let arguments = ["--server", scene.gateway.baseURL, "--token-file", home + "/token", "--once"]
            let first = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", arguments, environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
            #expect(first.status == 0, "\(first.output)")
            let id = try scene.gateway.sendText("Doors open at nine.", message: "Opening hours", to: "alice")
            let second = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", arguments, environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
            #expect(second.status == 0)
            #expect(second.output.contains("richpush \(id) [text] New message: Opening hours | Doors open at nine."))
        }

        @Test func aGatewayRestartMidRunLosesNothingAndShowsNothingTwice() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil)
            var sent = try scene.send(5)
            try await scene.daemon.waitUntilShown(sent)
            await scene.gateway.stop()
            try await scene.gateway.start()
            // Sent before the daemon is back: they reach it through the replay after Last-Event-ID.
            sent += try scene.send(5, from: 6)
            try await scene.daemon.waitUntilShown(sent, timeout: .seconds(20))
            sent += try scene.send(3, from: 11)
            try await scene.daemon.waitUntilShown(sent)
            // The stream is in order: a notification shown twice would come before the last one sent.
            sent += try scene.send(1, from: 14)
            try await scene.daemon.waitUntilShown(sent)
            #expect(scene.daemon.printed == sent)
            #expect(scene.daemon.shown == sent)
        }

        @Test func aCrashedGatewayLosesNothingEither() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil)
            var sent = try scene.send(3)
            try await scene.daemon.waitUntilShown(sent)
            await scene.gateway.stop(SIGKILL)
            try await scene.gateway.start()
            sent += try scene.send(3, from: 4)
            try await scene.daemon.waitUntilShown(sent, timeout: .seconds(20))
            #expect(scene.daemon.printed == sent)
        }

        @Test func aGatewayThatFallsSilentIsDetectedByTheMissingHeartbeat() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil)
            scene.gateway.pause()
            try await scene.daemon.waitForLog("the stream is dead", timeout: .seconds(10))
            scene.gateway.resume()
            let sent = try scene.send(2)
            try await scene.daemon.waitUntilShown(sent, timeout: .seconds(20))
            #expect(scene.daemon.log.components(separatedBy: "stream connected").count - 1 >= 2)
        }

        @Test func aRestartedDaemonShowsWhatItMissedAndNothingItShowedBefore() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil)
            let before = try scene.send(3)
            try await scene.daemon.waitUntilShown(before)
            await #expect(scene.daemon.terminate(within: .seconds(5))?.status == 0)
            let missed = try scene.send(2, from: 4)
            try await scene.daemon.start(desktop: nil)
            try await scene.daemon.waitUntilShown(missed)
            // The stream is in order: one shown before the restart, shown again, would come before the last one sent.
            let last = try scene.send(1, from: 6)
            try await scene.daemon.waitUntilShown(last)
            #expect(scene.daemon.printed == missed + last)
        }

        @Test func sigtermStopsTheDaemonCleanlyAndQuickly() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            try await scene.daemon.start(desktop: nil)
            let result = try #require(await scene.daemon.terminate(within: .seconds(5)))
            #expect(result.status == 0)
            #expect(result.elapsed < .seconds(2))
            #expect(scene.daemon.log.contains("richpushd stopped"))
        }

        @Test func onceShowsWhatArrivedSinceTheLastRunAndExits() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let first = try await scene.daemon.runOnce()
            #expect(first.status == 0, "\(first.log)")
            let sent = try scene.send(2)
            let second = try await scene.daemon.runOnce()
            #expect(second.status == 0, "\(second.log)")
            #expect(second.output.split(separator: "\n").count == 2)
            #expect(second.output.contains("richpush \(sent[0]) [text] New message: note 1 | body 1"))
            let third = try await scene.daemon.runOnce()
            #expect(third.status == 0)
            #expect(third.output.isEmpty)
        }

        @Test func wrongCredentialsStopTheDaemonWithAClearMessage() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let mallory = try DaemonProcess(gateway: scene.gateway, user: ("alice", "not-her-password"))
            let run = try await mallory.runOnce()
            #expect(run.status == 78)
            #expect(run.log.contains("the gateway rejected user alice"))
            #expect(!run.log.contains("not-her-password"))
        }

        @Test func thePasswordCanComeFromStandardInputButNeverFromAFlag() async throws {
            let home = try TemporaryDirectory()
            let environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
            let missing = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", ["--server", "http://127.0.0.1:1", "--user", "alice"], environment: environment)
            #expect(missing.status == 64)
            #expect(missing.output.contains("no password: give --password-file FILE (or RICHPUSH_PASSWORD_FILE) or --password-stdin"))
            let flag = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", ["--server", "http://127.0.0.1:1", "--user", "a", "--password", "x"], environment: environment)
            #expect(flag.status == 64)
            let empty = try await SpawnedProcess.run(
                productsDirectory + "/richpushd", ["--server", "http://127.0.0.1:1", "--user", "alice", "--password-stdin", "--once"],
                environment: environment, input: "\n")
            #expect(empty.output.contains("password is empty"))
        }
    }
}
