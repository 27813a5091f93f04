import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import RichPushCore
import RichPushHubs
import RichPushStore

/// Makes the request of an `http` action on the device's behalf, once, and records the status it got: the device
/// needs no credential of the target, and the target sees the gateway's address, never the device's.
///
/// The target is a host the sender named, so the request goes through the clients of user-named hosts: the outbound
/// address rules of the push endpoints, no redirects, an answer within ``timeout``.
struct ActionRunner: Sendable {
    let feeds: any FeedRepository
    let clients: PinnedHTTPClients
    let logger: Logger
    var timeout: TimeAmount = .seconds(10)

    /// The longest answer body read, only to free the connection: what it says is not kept.
    static let maximumAnswerBytes = 64 * 1024

    /// Runs `action` for `username` in the background; its status is recorded when it is known.
    func start(_ action: NotificationAction, of notificationId: Int64, for username: String) {
        Task {
            let status = await run(action)
            GatewayMetrics.actionRequestAnswered(status: status)
            do {
                try await feeds.recordActionStatus(username: username, notificationId: notificationId, action: action.id, status: status)
            } catch {
                logger.warning(
                    "action status not recorded",
                    metadata: ["richpush.notification.id": "\(notificationId)", "richpush.action": "\(action.id)", "error": "\(error)"])
            }
        }
    }

    /// The status the action's request got; 0 when it got none (refused address, no connection, no answer in time).
    func run(_ action: NotificationAction) async -> Int {
        let metadata: Logger.Metadata = ["richpush.action": "\(action.id)", "richpush.url": "\(action.url ?? "")"]
        guard let text = action.url, let url = URL(string: text) else { return 0 }
        let client: HTTPClient
        do throws(OutboundAddressPolicy.Refusal) {
            client = try await clients.client(for: url)
        } catch {
            logger.warning("action request refused", metadata: metadata.merging(["reason": "\(error.reason)"]) { $1 })
            return 0
        }
        var request = HTTPClientRequest(url: text)
        request.method = action.method == .GET ? .GET : .POST
        request.headers.add(name: "user-agent", value: "richpush-actions")
        if let body = action.body {
            request.headers.add(name: "content-type", value: Self.contentType(of: body))
            request.body = .bytes(ByteBuffer(string: body))
        }
        do {
            let response = try await client.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: Self.maximumAnswerBytes)
            logger.debug("action request answered", metadata: metadata.merging(["status": "\(response.status.code)"]) { $1 })
            return Int(response.status.code)
        } catch {
            logger.warning("action request failed", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return 0
        }
    }

    /// JSON when the body reads as JSON, else plain text: the sender wrote it for the target, which says which it takes.
    static func contentType(of body: String) -> String {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed])) != nil
            ? "application/json" : "text/plain; charset=utf-8"
    }
}
