import Foundation
import TestSupport
import Testing

@testable import RichPushDaemon

/// The end-to-end suites start real processes (gateways, buses, X servers); one at a time keeps them from starving
/// each other and the rest of the suite on a small machine.
@Suite("richpushd end to end", .serialized)
struct EndToEndTests {}

/// The daemon against a real gateway process, a private session bus and dunst under Xvfb.
extension EndToEndTests {
    @Suite("Desktop alerts on a real notification server")
    struct DesktopAlertTests {
        static let magenta: (UInt8, UInt8, UInt8) = (250, 20, 200)
        static let green: (UInt8, UInt8, UInt8) = (20, 230, 90)

        /// A desktop, a gateway with alice (`gatewayArguments` going to its `serve`), and alice's daemon connected.
        struct Scene {
            let desktop: TestDesktop
            let gateway: SpawnedGateway
            let alice: (String, String)
            let daemon: DaemonProcess

            init(https: Bool = false, gatewayArguments: [String] = []) async throws {
                desktop = try await TestDesktop()
                gateway = try await SpawnedGateway(https: https, extraArguments: gatewayArguments)
                try await gateway.start()
                alice = try gateway.createMember("alice")
                daemon = try DaemonProcess(gateway: gateway, user: alice)
                try await daemon.start(desktop: desktop)
            }

            /// Sends the two-colour image and waits until its alert is on screen.
            func showImage(message: String = "Check this image out!") async throws -> Int64 {
                let id = try gateway.sendImage(message: message, to: alice.0)
                try await daemon.waitUntilShown([id])
                return id
            }

            func stop() {
                daemon.stop()
                gateway.kill()
                desktop.stop()
            }
        }

        @Test func anImageNotificationPopsUpWithTheImageInside() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            #expect(try scene.desktop.pixels(matching: Self.magenta) == 0)
            let monitor = try await scene.desktop.monitorNotifyCalls()
            let id = try await scene.showImage()
            #expect(try await scene.desktop.displayedCount() == 1)
            let painted = await eventually {
                (try? scene.desktop.pixels(matching: Self.magenta)) ?? 0 > 500 && (try? scene.desktop.pixels(matching: Self.green)) ?? 0 > 500
            }
            #expect(painted, "the image's two colours are not on the screen")
            #expect(await eventually { (try? scene.gateway.status(id)["displayed"] as? Int) == 1 }, "no displayed receipt")
            // On the wire: the scaled copy as image-data (128 × 85, opaque RGB, 8 bits), the full file as image-path.
            let call = try await monitor.waitForOutput("int32 -1")
            let words = call.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains(#"string "richpush" uint32 0 string "" string "New image" string "Check this image out!""#))
            #expect(words.contains(#"string "default" string "Open" string "more" string "More""#))
            #expect(words.contains(#"string "desktop-entry" variant string "richpushd""#))
            #expect(words.contains(#"string "image-path" variant string "file://\#(scene.daemon.home.path)/.cache/richpush/\#(id).png""#))
            #expect(
                words.contains(
                    "string \"image-data\" variant struct { int32 128 int32 85 int32 384 boolean false int32 8 int32 3 array of bytes [ fa 14 c8"))
            try await scene.desktop.control(["close"])
            let entry = try #require(try await scene.desktop.history().first)
            #expect(entry["appname"] as? String == "richpush")
            #expect(entry["summary"] as? String == "New image")
            #expect(entry["body"] as? String == "Check this image out!")
            #expect(entry["default_action_name"] as? String == "default")
        }

        @Test func overHTTPSWithAPrivateCAAnImageNotificationPopsUpAsOverHTTP() async throws {
            let scene = try await Scene(https: true)
            defer { scene.stop() }
            let id = try await scene.showImage()
            #expect(try await scene.desktop.displayedCount() == 1)
            #expect(await eventually { (try? scene.gateway.status(id)["displayed"] as? Int) == 1 }, "no displayed receipt")
            #expect(scene.gateway.baseURL.hasPrefix("https://"))
        }

        @Test(arguments: ["two-colors.jpg", "two-colors.webp"])
        func aJPEGOrWebPCampaignPopsUpWithItsImageUnderItsTitle(fixture: String) async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let monitor = try await scene.desktop.monitorNotifyCalls()
            let imageId = try scene.gateway.upload(fixture)
            let id = try scene.gateway.send(
                #"{"message":"Thirty percent off","richType":"img","imageId":\#(imageId),"audience":"username:alice","title":"Winter sale"}"#)
            try await scene.daemon.waitUntilShown([id])
            let painted = await eventually {
                (try? scene.desktop.pixels(matching: Self.magenta, tolerance: 12)) ?? 0 > 500
                    && (try? scene.desktop.pixels(matching: Self.green, tolerance: 12)) ?? 0 > 500
            }
            #expect(painted, "the image's two colours are not on the screen")
            let call = try await monitor.waitForOutput("int32 -1")
            let words = call.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains(#"string "richpush" uint32 0 string "" string "Winter sale" string "Thirty percent off""#))
            let fileExtension = fixture.hasSuffix(".jpg") ? "jpg" : "webp"
            #expect(
                words.contains(#"string "image-path" variant string "file://\#(scene.daemon.home.path)/.cache/richpush/\#(id).\#(fileExtension)""#))
            #expect(words.contains("string \"image-data\" variant struct { int32 128 int32 85 int32 384 boolean false int32 8 int32 3"))
        }

        @Test func moreOpensTheFullImageAndMarksTheNotificationActivatedAndRead() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.showImage()
            try await scene.desktop.control(["context"])
            #expect(await eventually { scene.daemon.opened.count == 1 }, "nothing was opened:\n\(scene.daemon.log)")
            let opened = try #require(scene.daemon.opened.first)
            #expect(opened.hasSuffix("/richpush/\(id).png"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: opened)) == (try fixture("two-colors.png")))
            let activated = await eventually {
                let item = try? scene.gateway.feedItem(id, of: scene.alice)
                return item?["readState"] as? String == "read" && item?["userActionState"] as? String == "activated"
            }
            #expect(activated)
            #expect(try await scene.desktop.displayedCount() == 0)
            // The alert closed after the click; that closing is not a dismissal.
            try await scene.daemon.waitForLog("alert closing not reported")
            #expect(!scene.daemon.log.contains("alert dismissed"))
            #expect(try scene.gateway.feedItem(id, of: scene.alice)?["userActionState"] as? String == "activated")
        }

        @Test func clickingTheAlertOpensTheFullImageToo() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.showImage()
            try await scene.desktop.control(["action", "0"])
            #expect(await eventually { scene.daemon.opened.first?.hasSuffix("/\(id).png") == true })
            #expect(await eventually { (try? scene.gateway.feedItem(id, of: scene.alice)?["userActionState"] as? String) == "activated" })
        }

        @Test func dismissingTheAlertDismissesTheNotificationForTheUsersOtherDevices() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.showImage()
            try await scene.desktop.control(["close"])
            let dismissed = await eventually {
                let item = try? scene.gateway.feedItem(id, of: scene.alice)
                return item?["userActionState"] as? String == "dismissed" && item?["readState"] as? String == "unread"
            }
            #expect(dismissed, "\(scene.daemon.log)")
            #expect(await eventually { (try? scene.gateway.status(id)["dismissed"] as? Int) == 1 })
            #expect(scene.daemon.opened.isEmpty)
        }

        @Test func aDismissalOnAnotherDeviceClosesTheAlertAndIsNotReportedBack() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.showImage()
            let response = try scene.gateway.request(
                .patch, "/api/me/notifications/\(id)", as: scene.alice, json: #"{"userActionState":"dismissed"}"#)
            #expect(response.status == 200)
            #expect(await eventually { (try? await scene.desktop.displayedCount()) == 0 }, "the alert is still up")
            #expect(try await scene.desktop.history().first?["body"] as? String == "Check this image out!")
            // The server tells the daemon of the closing it asked for; the daemon keeps it to itself.
            try await scene.daemon.waitForLog("alert closing not reported")
            #expect(!scene.daemon.log.contains("alert dismissed"), "the daemon reported its own close:\n\(scene.daemon.log)")
        }

        @Test func dismissingOnOneDesktopClosesTheAlertOnTheUsersOtherDesktop() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let otherDesktop = try await TestDesktop()
            defer { otherDesktop.stop() }
            let otherDaemon = try DaemonProcess(gateway: scene.gateway, user: scene.alice)
            defer { otherDaemon.stop() }
            try await otherDaemon.start(desktop: otherDesktop)
            let id = try await scene.showImage()
            try await otherDaemon.waitUntilShown([id])
            #expect(try await otherDesktop.displayedCount() == 1)
            try await scene.desktop.control(["close"])
            #expect(await eventually { (try? await otherDesktop.displayedCount()) == 0 }, "the other desktop still shows it:\n\(otherDaemon.log)")
            #expect(try await otherDesktop.history().first?["body"] as? String == "Check this image out!")
            #expect(try scene.gateway.feedItem(id, of: scene.alice)?["userActionState"] as? String == "dismissed")
        }

        @Test func aReadOnAnotherDeviceLeavesTheAlertUp() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.showImage()
            _ = try scene.gateway.request(.patch, "/api/me/notifications/\(id)", as: scene.alice, json: #"{"readState":"read"}"#)
            try await scene.daemon.waitForLog("event=state")
            #expect(try await scene.desktop.displayedCount() == 1)
        }

        @Test func aGatewayRestartMidRunPopsUpEveryAlertExactlyOnce() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let monitor = try await scene.desktop.monitorNotifyCalls()
            var sent = [try await scene.showImage(message: "before the restart")]
            await scene.gateway.stop()
            try await scene.gateway.start()
            // Sent before the daemon is back: it reaches the daemon through the replay after Last-Event-ID.
            sent.append(try scene.gateway.sendImage(message: "while it reconnects", to: scene.alice.0))
            try await scene.daemon.waitUntilShown(sent, timeout: .seconds(20))
            sent.append(try await scene.showImage(message: "after the restart"))
            // The stream is in order: an alert popped up twice would come before the last one sent.
            sent.append(try await scene.showImage(message: "the last"))
            #expect(scene.daemon.shown == sent)
            #expect(await eventually { monitor.output.contains("the last") }, "the bus monitor did not see the last alert")
            #expect(monitor.output.components(separatedBy: "member=Notify").count - 1 == 4)
            #expect(try await scene.desktop.heldCount() == 4)
        }

        @Test func aRecalledNotificationDisappearsFromTheScreen() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            let id = try await scene.showImage()
            #expect(try scene.gateway.request(.delete, "/api/notifications/\(id)", as: SpawnedGateway.admin).status == 204)
            #expect(await eventually { (try? await scene.desktop.displayedCount()) == 0 })
            #expect(await eventually { !FileManager.default.fileExists(atPath: scene.daemon.home.path + "/.cache/richpush/\(id).png") })
        }

        /// The replay brings the notification and its recall: whether the alert was still waiting for the desktop (never
        /// shown) or already on its way (closed as soon as it is numbered), it is not left on screen.
        @Test func aNotificationRecalledWhileTheDaemonWasAwayIsNotLeftOnScreen() async throws {
            let scene = try await Scene()
            defer { scene.stop() }
            await #expect(scene.daemon.terminate(within: .seconds(5))?.status == 0)
            let recalled = try scene.gateway.sendImage(message: "Flash sale", to: scene.alice.0)
            #expect(await eventually { (try? scene.gateway.status(recalled)["sent"] as? Int) == 1 })
            #expect(try scene.gateway.request(.delete, "/api/notifications/\(recalled)", as: SpawnedGateway.admin).status == 204)
            try await scene.daemon.start(desktop: scene.desktop)
            let later = try await scene.showImage(message: "New arrivals")
            #expect(await eventually { (try? await scene.desktop.displayedCount()) == 1 })
            #expect(scene.daemon.shown.last == later)
        }
    }
}
