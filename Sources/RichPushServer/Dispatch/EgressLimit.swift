import Foundation
import Logging
import RichPushCore
import RichPushStore
import Synchronization

/// Holds image campaigns' pushes back while payloads go out at `limit` bytes a second or faster
/// (`--payload-egress-limit`), in this process and every other one sharing the store: each push of an image campaign
/// makes a device fetch the image, so the devices then fetch at the pace the gateway can serve them. Pushes of other
/// campaigns go on.
///
/// It knows the image campaigns from the claims it saw: a campaign that starts while the limit holds sends its first
/// claim's batch before it is held.
final class EgressLimit: Sendable {
    private struct State {
        /// Image campaigns by when a claim last took or held back their deliveries.
        var imageCampaigns: [Int64: Date] = [:]
        /// What the other processes serve, as last exchanged, and when.
        var others = 0
        var exchangedAt: Date?
        var holding = false
    }

    let limit: Int
    private let egress: PayloadEgress
    /// Where processes sharing the store exchange their egress; nil for the only process of an exclusive store.
    private let shared: (any PayloadEgressRepository)?
    private let clock: any WallClock
    private let logger: Logger
    private let process = UUID().uuidString
    private let state = Mutex(State())

    /// How often the egress is exchanged with the other processes, and how long an exchanged figure counts.
    static let exchangeInterval: TimeInterval = 1
    static let freshFor: TimeInterval = 3
    /// How long an image campaign no claim has seen is still held back.
    static let campaignMemory: TimeInterval = 600

    init(limit: Int, egress: PayloadEgress, shared: (any PayloadEgressRepository)?, clock: any WallClock, logger: Logger) {
        self.limit = limit
        self.egress = egress
        self.shared = shared
        self.clock = clock
        self.logger = logger
    }

    /// Notes the image campaigns among a claim's notifications.
    func noteClaimed(_ notifications: [Int64: ClaimedNotification]) {
        let images = notifications.filter { $0.value.richType == .img }.keys
        guard !images.isEmpty else { return }
        let now = clock.now
        state.withLock { state in
            for id in images { state.imageCampaigns[id] = now }
        }
    }

    /// Whether the last look held image campaigns back: the dispatcher then looks again a tenth of a second later
    /// at the soonest, rather than at once for the deliveries it left.
    var isHolding: Bool { state.withLock { $0.holding } }

    /// The image campaigns the next claim leaves, none while the egress is below the limit.
    func heldBack() async -> Set<Int64> {
        let now = clock.now
        let own = egress.bytesPerSecond
        var others = state.withLock { $0.others }
        if let shared, state.withLock({ $0.exchangedAt.map { now.timeIntervalSince($0) >= Self.exchangeInterval } ?? true }) {
            do {
                others = try await shared.exchange(process: process, bytesPerSecond: own, now: now, freshFor: Self.freshFor)
            } catch {
                // The last figure stands until the store answers again.
                logger.warning("payload egress not exchanged", metadata: ["richpush.error": "\(error)"])
            }
            state.withLock { state in
                state.others = others
                state.exchangedAt = now
            }
        }
        let atLimit = own + others >= limit
        return state.withLock { state in
            state.imageCampaigns = state.imageCampaigns.filter { now.timeIntervalSince($0.value) < Self.campaignMemory }
            state.holding = atLimit && !state.imageCampaigns.isEmpty
            guard state.holding else { return [] }
            // Held campaigns still have deliveries to send: they are remembered for as long as they are held.
            for id in state.imageCampaigns.keys { state.imageCampaigns[id] = now }
            return Set(state.imageCampaigns.keys)
        }
    }
}
