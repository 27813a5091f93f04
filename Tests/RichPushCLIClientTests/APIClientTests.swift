import Foundation
import GatewayTesting
import RichPushCore
import Testing

@testable import RichPushCLIClient

@Suite("Talking HTTP to a gateway")
struct APIClientTests {
    @Test func aMarketerUploadsAnImageAndSendsItToADevice() async throws {
        try await LiveGateway.run { server, admin in
            let mark = try await admin.createUser("mark", role: .marketer)
            let alice = try await admin.createUser("alice", role: .member)
            try await alice.register("laptop")
            let image = try await mark.uploadImage(try fixture("valid-rgba.png"))
            let created = try await mark.createNotification(
                NewNotificationJSON(message: "Winter sale", richType: .img, imageId: image.id, audience: "username:alice"))
            #expect(created.message == "Winter sale")
            #expect(created.imageId == image.id)
            let status = try await DeliveryFollower(client: mark, interval: .milliseconds(50)).follow(id: created.id) { _ in }
            #expect(status.state == .delivered)
            #expect(status.targeted == 1)
            #expect(status.sent == 1)
        }
    }

    @Test func theGatewaysErrorSentenceComesBackAsARefusal() async throws {
        try await LiveGateway.run { server, admin in
            let mark = try await admin.createUser("mark", role: .marketer)
            await #expect(throws: ClientError.refused(status: 401, code: "auth.required", message: "The username or password is wrong.")) {
                try await APIClient(server: server, username: "mark", password: "not-the-password").status(id: 1)
            }
            let truncated = try fixture("truncated.png")
            do {
                _ = try await mark.uploadImage(truncated)
                Issue.record("a truncated PNG was accepted")
            } catch let error as ClientError {
                guard case .refused(422, "image.corrupt", let message) = error else { throw error }
                #expect(message.hasPrefix("The PNG image does not decode"))
            }
        }
    }

    @Test func aGatewayThatRefusesTheConnectionIsReportedAtOnce() async throws {
        let capture = CapturedTerminal()
        let start = ContinuousClock.now
        let exit = await CommandRunner.run(
            Connection(server: "http://127.0.0.1:9/", credential: .password(username: "mark", password: "p")), terminal: capture.terminal
        ) {
            await $0.status(id: 1, wait: false, json: false)
        }
        #expect(exit == .unreachable)
        #expect(capture.standardError == "richpush: Cannot reach the gateway at http://127.0.0.1:9: connection refused.\n")
        // Before the 60-second request timeout a retrying connection pool would wait for; a machine busy with the other
        // tests has taken 20 s to report the refusal.
        #expect(ContinuousClock.now - start < .seconds(50))
    }
}
