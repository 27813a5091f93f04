import Foundation
import TestSupport
import Testing

@testable import RichPushDaemon

/// The sender's buttons on a real notification server: dunst under Xvfb, the gateway as its own process, and an
/// HTTPS target for the gateway's http actions.
extension EndToEndTests {
    @Suite("Buttons on the desktop")
    struct DesktopActionTests {
        /// The desktop alerts' scene with a gateway that may reach the loopback target, and the target.
        struct Scene {
            let alerts: DesktopAlertTests.Scene
            let target: ChildProcess
            let targetPort: String
            let certificates: TemporaryDirectory

            var desktop: TestDesktop { alerts.desktop }
            var gateway: SpawnedGateway { alerts.gateway }
            var alice: (String, String) { alerts.alice }
            var daemon: DaemonProcess { alerts.daemon }

            init() async throws {
                certificates = try TemporaryDirectory()
                let (certificate, key) = try await SpawnedGateway.issueCertificate(in: certificates, named: "target")
                target = try ChildProcess(
                    "/usr/bin/python3",
                    [repositoryRoot.appendingPathComponent("Tests/desktop/https_target.py").path, "--cert", certificate, "--key", key],
                    environment: ProcessInfo.processInfo.environment, outputFile: certificates.path + "/target.out")
                let listening = try await target.waitForOutput("\n")
                targetPort = listening.split(whereSeparator: \.isWhitespace).last.map(String.init) ?? ""
                alerts = try await DesktopAlertTests.Scene(gatewayArguments: ["--allow-private-push-endpoints", "--tls-ca-file", certificate])
            }

            /// Sends the three-button sale to alice at `level` and waits until its alert is on screen.
            func sendSale(interruptionLevel level: String = "active") async throws -> Int64 {
                let id = try gateway.send(
                    #"""
                    {"message":"Thirty percent off","richType":"text","audience":"username:alice","title":"Winter sale","interruptionLevel":"\#(level)",
                     "actions":[{"id":"shop","label":"Shop now","kind":"open","url":"https://shop.example/sale"},
                                {"id":"remind","label":"Remind me","kind":"http","url":"https://127.0.0.1:\#(targetPort)/remind","body":"{\"in\":\"1d\"}"},
                                {"id":"later","label":"Not now","kind":"dismiss"}]}
                    """#)
                try await daemon.waitUntilShown([id])
                return id
            }

            func stop() {
                alerts.stop()
                target.stop()
            }
        }

        @Test func theSendersThreeButtonsAreOnTheAlertBetweenOpenAndMoreAtTheLevelsUrgency() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let monitor = try await scene.desktop.monitorNotifyCalls()
            _ = try await scene.sendSale(interruptionLevel: "time-sensitive")
            let call = try await monitor.waitForOutput("int32 -1")
            let words = call.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(
                words.contains(
                    #"string "default" string "Open" string "action:shop" string "Shop now" string "action:remind" string "Remind me" string "action:later" string "Not now" string "more" string "More""#
                ))
            #expect(words.contains(#"string "urgency" variant byte 2"#))
        }

        @Test func anHTTPButtonHasTheGatewayMakeItsRequestOnceAndRecordsThePress() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.sendSale()
            try scene.desktop.pick("Remind me")
            try await scene.desktop.control(["context"])
            try await scene.target.waitForOutput("request POST /remind {\"in\":\"1d\"}")
            let recorded = await eventually {
                let item = try? scene.gateway.feedItem(id, of: scene.alice)
                return item?["userActionState"] as? String == "activated" && item?["action"] as? String == "remind"
            }
            #expect(recorded, "the press was not recorded:\n\(scene.daemon.log)")
            #expect(scene.target.output.components(separatedBy: "request ").count - 1 == 1)
            #expect(scene.daemon.opened.isEmpty)
            #expect(try await scene.desktop.displayedCount() == 0)
        }

        @Test func anOpenButtonOpensItsLinkAndADismissButtonDismisses() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let opened = try await scene.sendSale()
            try scene.desktop.pick("Shop now")
            try await scene.desktop.control(["context"])
            #expect(await eventually { scene.daemon.opened == ["https://shop.example/sale"] }, "nothing was opened:\n\(scene.daemon.log)")
            #expect(await eventually { (try? scene.gateway.feedItem(opened, of: scene.alice)?["action"] as? String) == "shop" })
            let dismissed = try await scene.sendSale()
            try scene.desktop.pick("Not now")
            try await scene.desktop.control(["context"])
            let recorded = await eventually {
                let item = try? scene.gateway.feedItem(dismissed, of: scene.alice)
                return item?["userActionState"] as? String == "dismissed" && item?["action"] as? String == "later"
            }
            #expect(recorded, "the dismissal was not recorded:\n\(scene.daemon.log)")
        }
    }
}
