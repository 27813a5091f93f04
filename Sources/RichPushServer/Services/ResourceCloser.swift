import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Keeps the store, the hub connections and the clients of user-named hosts (webhooks, http actions) open while the
/// application runs and closes them last, after the dispatcher, the webhook sender and the server stopped and the last
/// payload fetches are recorded.
struct ResourceCloser: Service {
    let store: Store
    let hubs: HubRegistry
    let fetches: FetchRecorder
    let outboundClients: PinnedHTTPClients

    func run() async throws {
        try? await gracefulShutdown()
        // An unstructured task is not cancelled with the group: the connections are closed even then.
        try await Task {
            try? await hubs.shutdown()
            try? await outboundClients.shutdown()
            await fetches.flushed()
            try await store.close()
        }.value
    }
}
