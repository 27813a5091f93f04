import RichPushCore
import RichPushHubs
import RichPushStore

/// The direct hub's channel: `rich` events appended to the store, then the owners' open streams woken.
struct StoreDirectChannel: DirectChannel {
    let store: Store
    let broadcaster: EventBroadcaster

    func publish(_ jobs: [DeliveryJob]) async throws {
        let users = try await store.appendRichEvents(for: jobs)
        broadcaster.notify(users)
    }
}
