import RichPushStore
import ServiceLifecycle

/// Keeps the store open while the application runs and closes it last, after the dispatcher and the server stopped.
struct StoreCloser: Service {
    let store: Store

    func run() async throws {
        try? await gracefulShutdown()
        // An unstructured task is not cancelled with the group: the connections are closed even then.
        try await Task { try await store.close() }.value
    }
}
