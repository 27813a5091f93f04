import Foundation
import Logging
import RichPushCore
import RichPushImaging
import RichPushStore

/// The parts the application is built from: the store, authentication, the wake-ups of the dispatcher and the
/// streams, and the caches of the payload path. `buildRouter` hands each controller only the parts it uses.
struct Gateway: Sendable {
    let configuration: ServerConfiguration
    let store: Store
    let authenticator: Authenticator
    let hasher: PasswordHasher
    let broadcaster: EventBroadcaster
    /// Open streams' work, shared by the router and the stream fast path.
    let stream: DirectStream
    /// Rung when new deliveries are due, so the dispatcher does not wait for its next tick.
    let dispatcherDoorbell: Doorbell
    /// Rung when a state change put state pushes in their outbox.
    let statePushDoorbell: Doorbell
    /// Rung when a webhook is enabled again, so its waiting events go at once.
    let webhookDoorbell: Doorbell
    /// Rung when a Live Activity starts, changes or ends, or a device sends a token it waited for.
    let activityDoorbell: Doorbell
    /// Outboxes begun by a POST, completed after its answer.
    let outboxes: OutboxQueue
    let linkSigner: LinkSigner
    let payloads: PayloadMemory
    let metrics: GatewayMetrics
    /// Connections not signed in yet, counted per address.
    let connections: UnauthenticatedConnections
    let rateLimits: RateLimits
    /// The VAPID key browsers subscribe with; nil without Web Push.
    let webPushPublicKey: String?
}
