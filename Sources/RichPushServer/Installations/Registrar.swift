import Foundation
import RichPushCore
import RichPushHubs
import RichPushStore

/// A caller's own registration, shared by `PUT /api/installations/{id}` and the tutorial's `PUT /api/register/{id}`:
/// stored within the per-user limit, the dispatcher woken to bring remote hubs' copies in step.
struct Registrar: Sendable {
    let installations: any InstallationRepository
    let maximumInstallationsPerUser: Int
    let dispatcherDoorbell: Doorbell
    let rules: InstallationRules

    /// Stores `record`, or throws the ``APIError`` of a taken id or channel or of the per-user limit.
    func register(_ record: InstallationRecord) async throws -> (stored: InstallationRecord, created: Bool) {
        try await checkChannelAddresses(of: record)
        do {
            let (stored, created) = try await installations.upsert(record, limit: maximumInstallationsPerUser)
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

    /// Refuses a channel the gateway posts to (a Web Push endpoint, a WNS channel) whose host resolves to a loopback,
    /// private or link-local address. A name that does not resolve now is kept: it is judged again at each connection.
    private func checkChannelAddresses(of record: InstallationRecord) async throws {
        let url: URL? =
            switch record.platform {
            case .webpush: try? WebPushSubscription(channel: record.pushChannel, policy: rules.outboundAddresses).endpoint
            case .wns: URL(string: record.pushChannel)
            default: nil
            }
        guard !rules.outboundAddresses.allowsPrivateAddresses, let host = url?.host else { return }
        do throws(OutboundAddressPolicy.Refusal) {
            _ = try await rules.outboundAddresses.addresses(of: host)
        } catch {
            guard error.unresolved else {
                throw APIError.unprocessable("installation.invalidPushChannel", "The pushChannel's host is refused: \(error.reason)")
            }
        }
    }
}
