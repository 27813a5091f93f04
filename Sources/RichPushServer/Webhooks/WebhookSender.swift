import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import RichPushCore
import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Works the webhooks' outbox: gathers the events that wait into one message per webhook, signs it, posts it and
/// records what came back. Events are written in the transactions of what they tell and a message leaves the outbox
/// only once its receiver took it, so a crash loses none; a message claimed when the process died falls due again
/// when its lease runs out, and goes with the same `webhook-id`, by which the receiver drops a repeat.
struct WebhookSender: Service {
    struct Policy: Sendable {
        /// The longest an idle sender waits before looking for new events: what a batch gathers meanwhile goes in one
        /// request.
        var idleInterval: Duration = .seconds(1)
        var maximumEventsPerMessage = 100
        /// Past the request's timeout, so a message being sent is never claimed twice.
        var lease: TimeInterval = 60
        var timeout: TimeAmount = .seconds(10)
        var retries = WebhookRetryPolicy()
    }

    let webhooks: any WebhookRepository
    /// The receivers' addresses are named by admins: they are judged by the outbound rules of the push endpoints.
    let clients: PinnedHTTPClients
    let doorbell: Doorbell
    let policy: Policy
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        await doorbell.runUntilStopped {
            while !doorbell.isClosed {
                do {
                    let messages = try await webhooks.claimDueMessages(
                        maximumEvents: policy.maximumEventsPerMessage, lease: policy.lease, now: clock.now)
                    guard !messages.isEmpty else {
                        await doorbell.wait(upTo: policy.idleInterval)
                        continue
                    }
                    try await withThrowingDiscardingTaskGroup { group in
                        for message in messages { group.addTask { try await send(message) } }
                    }
                } catch {
                    logger.error("webhooks failed", metadata: ["error": "\(error)"])
                    await doorbell.wait(upTo: policy.idleInterval)
                }
            }
        }
    }

    private func send(_ message: WebhookMessage) async throws {
        let (result, refused) = await post(message)
        let next = policy.retries.followUp(after: result, refused: refused, of: message, now: clock.now)
        if case .disable(let reason) = next {
            logger.warning("webhook disabled", metadata: ["richpush.webhook": "\(message.webhookId)", "reason": "\(reason)"])
        }
        try await webhooks.record(result, of: message, then: next, now: clock.now)
    }

    /// One attempt; `refused` when the outbound rules forbid the receiver's address.
    private func post(_ message: WebhookMessage) async -> (result: WebhookAttemptResult, refused: Bool) {
        let started = ContinuousClock.now
        func result(status: Int?, error: String?) -> WebhookAttemptResult {
            let elapsed = ContinuousClock.now - started
            return WebhookAttemptResult(
                status: status, error: error, duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        guard let url = URL(string: message.url), let signer = WebhookSigner(secret: message.secret) else {
            return (result(status: nil, error: "The webhook's URL or secret is unreadable."), true)
        }
        let client: HTTPClient
        do throws(OutboundAddressPolicy.Refusal) {
            client = try await clients.client(for: url)
        } catch {
            return (result(status: nil, error: error.reason), !error.unresolved)
        }
        let body = WebhookBody.encode(message.events)
        let timestamp = Int64(clock.now.timeIntervalSince1970)
        var request = HTTPClientRequest(url: message.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "richpush-webhooks")
        request.headers.add(name: "webhook-id", value: message.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: signer.signature(id: message.id, timestamp: timestamp, body: body))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: policy.timeout)
            // The answer's body means nothing here; it is read only to free the connection, up to a limit.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (result(status: Int(response.status.code), error: nil), false)
        } catch {
            return (result(status: nil, error: "\(error)"), false)
        }
    }
}
