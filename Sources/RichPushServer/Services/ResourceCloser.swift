import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Keeps the store and the hub connections open while the application runs and closes them last, after the
/// dispatcher and the server stopped and the last payload fetches are recorded.
struct ResourceCloser: Service {
    let store: Store
    let hubs: HubRegistry
    let fetches: FetchRecorder

    func run() async throws {
        try? await gracefulShutdown()
        // An unstructured task is not cancelled with the group: the connections are closed even then.
        try await Task {
            try? await hubs.shutdown()
            await fetches.flushed()
            try await store.close()
        }.value
    }
}
