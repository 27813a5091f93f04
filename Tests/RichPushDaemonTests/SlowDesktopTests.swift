import Foundation
import TestSupport
import Testing

/// The daemon against a notification server that answers only when told to: no alert waits for another's answer,
/// none goes anywhere else while the server is there, and the server's leaving sends what it left to standard output.
extension EndToEndTests {
    @Suite("A notification server that is slow to answer")
    struct SlowDesktopTests {
        /// A session bus whose notification server holds its answers, a gateway with alice, and alice's daemon.
        struct Scene {
            let desktop: TestDesktop
            let server: ChildProcess
            let gateway: SpawnedGateway
            let alice: (String, String)
            let daemon: DaemonProcess

            init() async throws {
                desktop = try await TestDesktop(notificationServer: false)
                server = try ChildProcess(
                    "/usr/bin/python3", [repositoryRoot.appendingPathComponent("Tests/desktop/held_notification_server.py").path],
                    environment: desktop.environment, outputFile: desktop.directory.path + "/held-server.out")
                _ = try await server.waitForOutput("ready")
                gateway = try await SpawnedGateway()
                try await gateway.start()
                alice = try gateway.createMember("alice")
                daemon = try DaemonProcess(gateway: gateway, user: alice)
                try await daemon.start(desktop: desktop)
            }

            func send(_ range: ClosedRange<Int>) throws -> [Int64] {
                try range.map { try gateway.sendText("body \($0)", message: "note \($0)", to: alice.0) }
            }

            /// The messages of the Notify calls the server received, in order.
            var notified: [String] {
                server.output.split(separator: "\n").filter { $0.hasPrefix("notify ") }.map { String($0.drop { $0 != ":" }.dropFirst(2)) }
            }

            /// Makes the server answer every call it holds.
            func release() async throws {
                let release = try await SpawnedProcess.run(
                    "/usr/bin/gdbus",
                    [
                        "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
                        "--method", "org.richpush.Test.Release",
                    ],
                    environment: desktop.environment)
                #expect(release.status == 0, "\(release.output)")
            }

            func stop() {
                daemon.stop()
                gateway.kill()
                server.stop()
                desktop.stop()
            }
        }

        @Test func everyAlertGoesToTheDesktopWithoutWaitingForTheAnswersToEarlierOnes() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let ids = try scene.send(1...3)
            // All three Notify calls reach the server while it has answered none of them.
            #expect(
                await eventually { scene.notified.count == 3 }, "the server saw:\n\(scene.server.output)\nthe daemon logged:\n\(scene.daemon.log)")
            #expect(scene.daemon.shown.isEmpty)
            try await scene.release()
            try await scene.daemon.waitUntilShown(ids)
            #expect(scene.daemon.printed.isEmpty)
        }

        @Test func alertsBeyondSixteenUnansweredWaitForTheDesktopAndReachItInOrder() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let ids = try scene.send(1...20)
            try await scene.daemon.waitForLog("alerts wait for the desktop next=\(ids[16]) unanswered=16 waiting=4")
            #expect(await eventually { scene.notified.count == 16 })
            try await scene.release()
            #expect(await eventually { scene.notified.count == 20 }, "the daemon logged:\n\(scene.daemon.log)")
            try await scene.release()
            try await scene.daemon.waitUntilShown(ids)
            #expect(scene.notified.map { $0.prefix { $0 != "\n" } } == (1...20).map { "note \($0)" })
            #expect(scene.daemon.printed.isEmpty, "alerts the desktop had not answered went to standard output")
        }

        @Test func whatTheDesktopLeftUnansweredGoesToStandardOutputInOrderOnceItsServerIsGone() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let ids = try scene.send(1...3)
            #expect(await eventually { scene.notified.count == 3 })
            scene.server.stop()
            #expect(await eventually { scene.daemon.printed == ids }, "the daemon logged:\n\(scene.daemon.log)")
            #expect(scene.daemon.log.contains("the desktop is gone; alerts go to standard output"))
            let later = try scene.send(4...4)
            #expect(await eventually { scene.daemon.printed == ids + later })
        }

        @Test func anAlertTheDesktopTurnsDownIsLoggedAndNotPrinted() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let refused = try scene.gateway.sendText("body", message: "refuse me", to: scene.alice.0)
            let next = try scene.send(2...2)
            #expect(await eventually { scene.notified.count == 2 })
            try await scene.release()
            try await scene.daemon.waitUntilShown(next)
            #expect(scene.daemon.log.contains("the desktop refused the alert id=\(refused)"))
            #expect(scene.daemon.printed.isEmpty)
        }
    }
}
