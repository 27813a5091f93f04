import RichPushCore
import RichPushStore

/// A caller's own registration, shared by `PUT /api/installations/{id}` and the tutorial's `PUT /api/register/{id}`:
/// stored within the per-user limit, the dispatcher woken to bring remote hubs' copies in step.
struct Registrar: Sendable {
    let store: Store
    let maximumInstallationsPerUser: Int
    let dispatcherDoorbell: Doorbell
    let rules: InstallationRules

    /// Stores `record`, or throws the ``APIError`` of a taken id or channel or of the per-user limit.
    func register(_ record: InstallationRecord) async throws -> (stored: InstallationRecord, created: Bool) {
        do {
            let (stored, created) = try await store.upsertInstallation(record, limit: maximumInstallationsPerUser)
            // A remote hub's copy of the registration is brought in step by the dispatcher.
            dispatcherDoorbell.ring()
            return (stored, created)
        } catch StoreError.installationOwnedByAnother {
            throw APIError.conflict("installation.taken", "Installation \(record.id) is registered by another user.")
        } catch StoreError.channelTaken {
            throw APIError.conflict("installation.channelTaken", "This pushChannel is registered by another user's installation.")
        } catch StoreError.installationLimit(let limit) {
            throw APIError.unprocessable(
                "installation.limit", "You have \(limit) installations, the most allowed; remove one you no longer use first.")
        }
    }
}
