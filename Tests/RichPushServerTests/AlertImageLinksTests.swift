import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

@Suite("Image links in alerts")
struct AlertImageLinksTests {
    let links = AlertImageLinks(publicURL: "https://push.example.com", signer: LinkSigner(secret: "test-secret"))
    let expiry = Date(timeIntervalSince1970: 1_900_000_000)

    func alert(to installationId: String, on platform: Platform) -> DeliveryJob {
        DeliveryJob(
            deliveryId: 1, attempt: 1, notificationId: 7, push: SilentPush(richId: 7, richType: .img, richMessage: "Look", style: .alert),
            audience: "topic:sale", expiresAt: expiry, installationId: installationId, owner: "alice", platform: platform,
            pushChannel: "\(installationId)-token")
    }

    @Test func eachDeviceGetsALinkSignedForItself() {
        let jobs = links.adding(to: [alert(to: "pixel", on: .fcm), alert(to: "tablet", on: .fcm)])
        #expect(jobs.map { $0.imageLink?.contains("&installationId=pixel&sig=") } == [true, false])
        #expect(jobs[1].imageLink?.contains("&installationId=tablet&sig=") == true)
    }

    @Test func aPushAHubSendsToAWholeAudienceLinksTheImageForNoDeviceInParticular() {
        let job = links.adding(to: [alert(to: "pixel", on: .fcm)], audiencePlatforms: [.fcm])[0]
        #expect(job.imageLink?.hasPrefix("https://push.example.com/api/notifications/7?exp=1900000000&sig=") == true)
    }
}
