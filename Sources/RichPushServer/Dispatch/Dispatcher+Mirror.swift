import Foundation
import Logging
import RichPushCore
import RichPushHubs
import RichPushStore

extension Dispatcher {
    /// Copies changed installations into the remote hub's registrations, or removes them (deleted or replaced) there; returns how many it
    /// handled. A refusal that retrying cannot fix is logged and dropped; anything else is tried again with backoff.
    func syncMirror() async throws -> Int {
        guard let mirror = hubs.mirror, let mirrorQueue else { return 0 }
        let tasks = try await mirrorQueue.claim(now: clock.now, limit: policy.batchSize, lease: policy.lease)
        for task in tasks {
            do {
                // A replaced installation's channel now belongs to another user's installation: the hub must not reach
                // that device under the old one's tags.
                if let installation = task.installation, !installation.isReplaced, hubs.audiencePlatforms.contains(installation.platform) {
                    try await mirror.put(
                        MirroredInstallation(
                            id: installation.id, platform: installation.platform, pushChannel: installation.pushChannel,
                            // The hub refuses tags outside its alphabet (a time zone's `/`); audiences naming them
                            // go to each device instead.
                            tags: installation.allTags.filter(Tag.isValid).sorted()))
                } else {
                    try await mirror.delete(installationId: task.installationId)
                }
                try await mirrorQueue.finish(task)
            } catch let error as MirrorError where !error.isTransient {
                logger.warning(
                    "hub refused an installation", metadata: ["richpush.installation": "\(task.installationId)", "error": "\(error)"])
                try await mirrorQueue.finish(task)
            } catch {
                let delay = min(policy.longestRetryDelay, policy.firstRetryDelay * pow(2, Double(task.attempts)))
                try await mirrorQueue.postpone(task, delay: delay * Double.random(in: 0.8...1.2), error: "\(error)", now: clock.now)
            }
        }
        return tasks.count
    }
}
