import Foundation
import RichPushCore

/// The absolute, signed links to the images of alert pushes: an alert that shows the image itself (FCM's
/// `notification.image`) has the device's system fetch it, without credentials.
struct AlertImageLinks: Sendable {
    /// The gateway's address as devices reach it, e.g. `https://push.example.com`.
    let publicURL: String
    let signer: LinkSigner

    /// `jobs` with the link set on every alert of an image notification, working as long as hubs keep its push (the
    /// job's `expiresAt`, which the dispatcher sets for every job). Each device gets its own link, so the fetch its
    /// system makes counts as that device's, but on `audiencePlatforms`, whose hub sends one push to the whole
    /// audience: there the link names no device.
    func adding(to jobs: [DeliveryJob], audiencePlatforms: Set<Platform> = [], now: Date = .now) -> [DeliveryJob] {
        jobs.map { job in
            guard job.pushStyle == .alert, job.push.richType == .img else { return job }
            var job = job
            let device = audiencePlatforms.contains(job.platform) ? nil : job.installationId
            job.imageLink = publicURL + signer.payloadURL(id: job.notificationId, until: job.expiresAt ?? now, installationId: device)
            return job
        }
    }
}
