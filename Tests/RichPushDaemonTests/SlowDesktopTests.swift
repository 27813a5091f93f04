import Foundation
import TestSupport
import Testing

/// The daemon against a notification server that answers only when told to: no alert waits for another's answer.
extension EndToEndTests {
    @Suite("A notification server that is slow to answer")
    struct SlowDesktopTests {
        @Test func everyAlertGoesToTheDesktopWithoutWaitingForTheAnswersToEarlierOnes() async throws {
            let desktop = try await TestDesktop(notificationServer: false)
            defer { desktop.stop() }
            let server = try ChildProcess(
                "/usr/bin/python3", [repositoryRoot.appendingPathComponent("Tests/desktop/held_notification_server.py").path],
                environment: desktop.environment,
                outputFile: desktop.directory.path + "/held-server.out")
            defer { server.stop() }
            _ = try await server.waitForOutput("ready")
            let gateway = try await SpawnedGateway()
            try await gateway.start()
            defer { gateway.kill() }
            let alice = try gateway.createMember("alice")
            let daemon = try DaemonProcess(gateway: gateway, user: alice)
            try await daemon.start(desktop: desktop)
            defer { daemon.stop() }

            let ids = try (1...3).map { try gateway.sendText("body \($0)", message: "note \($0)", to: alice.0) }
            // All three Notify calls reach the server while it has answered none of them.
            let calls = { server.output.components(separatedBy: "notify New message").count - 1 }
            #expect(await eventually { calls() == 3 }, "the server saw:\n\(server.output)\nthe daemon logged:\n\(daemon.log)")
            #expect(daemon.shown.isEmpty)

            let release = try await SpawnedProcess.run(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
                    "--method", "org.richpush.Test.Release",
                ],
                environment: desktop.environment)
            #expect(release.status == 0, "\(release.output)")
            try await daemon.waitUntilShown(ids)
        }
    }
}
