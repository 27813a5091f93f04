public import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
public import RichPushCore

/// Azure Notification Hubs. A notification goes out as one hub send per platform with the audience as
/// `ServiceBusNotification-Tags`, as the tutorial's backend does with
/// `SendAppleNativeNotificationAsync(payload, "username:" + name)`; the hub fans it out to the installations this
/// gateway mirrored into it. An audience beyond the hub's tag-expression limits, or a notification whose pushes differ
/// per device (a variant per language, a badge per user), goes out as direct sends instead.
public struct NotificationHubsHub: NotificationHub {
    let api: NotificationHubsAPI
    let configuration = ConfigurationHealth(hub: "anh")
    let maximumConcurrentRequests: Int

    public var name: String { "anh" }

    /// The platforms the hub carries in place of direct APNs and FCM.
    public static let platforms: Set<Platform> = [.apns, .fcm]

    /// The hub the settings describe, nil when Notification Hubs is not configured.
    public static func configured(by settings: HubSettings, client: HTTPClient) throws(HubConfigurationError) -> NotificationHubsHub? {
        guard let api = try NotificationHubsAPI.configured(by: settings, client: client) else { return nil }
        return NotificationHubsHub(api: api, maximumConcurrentRequests: settings.maximumConcurrentRequests)
    }

    /// The installations mirror that keeps the hub's registrations in step with the gateway's.
    public var mirror: any InstallationMirror { api }

    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        var groups: [[Int]] = []
        var groupOfKey: [String: Int] = [:]
        for (index, job) in jobs.enumerated() {
            let key = "\(job.notificationId)/\(job.platform.rawValue)"
            if let group = groupOfKey[key] {
                groups[group].append(index)
            } else {
                groupOfKey[key] = groups.count
                groups.append([index])
            }
        }
        let abort = BatchAbort()
        var outcomes = [DeliveryOutcome](repeating: .failed(code: "anh.internal", message: "not sent"), count: jobs.count)
        _ = await groups.concurrentMap(
            maximum: maximumConcurrentRequests,
            finished: { _, group in
                for (index, outcome) in group {
                    outcomes[index] = outcome
                    progress.answered(index, outcome)
                }
            },
            { indexes in Array(zip(indexes, await self.send(indexes.map { jobs[$0] }, abort: abort, logger: logger))) })
        return outcomes
    }

    /// Sends the deliveries of one notification on one platform: one audience send when the hub can evaluate the
    /// audience and every device gets the same push, one direct send per device otherwise.
    private func send(_ jobs: [DeliveryJob], abort: BatchAbort, logger: Logger) async -> [DeliveryOutcome] {
        if !jobs[0].variesByDevice, let audience = try? TagExpression(parsing: jobs[0].audience), Self.hubAccepts(audience) {
            let outcome = await send(jobs[0], target: .tags(audience.description), abort: abort, logger: logger)
            return jobs.map { _ in outcome }
        }
        return await jobs.concurrentMap(maximum: maximumConcurrentRequests) { job in
            await self.send(job, target: .device(job.pushChannel), abort: abort, logger: logger)
        }
    }

    private func send(_ job: DeliveryJob, target: NotificationHubsAPI.Target, abort: BatchAbort, logger: Logger) async -> DeliveryOutcome {
        if let failure = abort.failure { return failure }
        let response: HubResponse
        do {
            response = try await api.send(job, to: target)
        } catch {
            return .retry(after: 0, code: "anh.unreachable", message: "Notification Hubs could not be reached: \(error)")
        }
        let reason = "Notification Hubs answered \(response.status)" + Self.detail(of: response)
        switch response.status {
        case 200, 201:
            configuration.clear()
            return .sent
        case 401, 403, 404:
            let failure = configuration.fail(
                code: "anh.status\(response.status)", message: reason + " (check the connection string and hub name)", logger: logger)
            abort.abort(with: failure)
            return failure
        case 429, 500...599:
            return .retry(after: response.retryAfter ?? 0, code: "anh.status\(response.status)", message: reason)
        default:
            return .failed(code: "anh.status\(response.status)", message: reason)
        }
    }

    /// Notification Hubs evaluates at most 20 tags in an expression of only `||`, and 6 in any other, and knows
    /// neither app-version comparisons nor the time-zone tags its alphabet has no `/` for.
    static func hubAccepts(_ audience: TagExpression) -> Bool {
        !audience.comparesVersions && audience.tags.allSatisfy(Tag.isValid) && audience.tags.count <= (audience.isPureDisjunction ? 20 : 6)
    }

    private static func detail(of response: HubResponse) -> String {
        let text = String(buffer: response.body).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": \(text.prefix(300))"
    }
}
