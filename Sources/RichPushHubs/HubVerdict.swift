import Foundation
import Logging
import RichPushCore

/// What one answer of a token-authorized hub (APNs, FCM) means for a delivery.
enum HubVerdict: Equatable {
    case sent
    /// The hub refused the bearer credential as expired: get a new one and send again, once.
    case credentialRejected
    /// The device will never accept this push: stop sending to it until it registers again.
    case deviceGone(code: String, message: String)
    /// Nothing a device can fix: every other push of the batch would fail the same way.
    case configuration(code: String, message: String)
    case retry(after: TimeInterval, code: String, message: String)
    case failed(code: String, message: String)
}

/// Why no bearer credential could be had.
enum CredentialFailure: Error {
    /// The hub or its token service refused the configured key: a configuration failure.
    case refused(String)
    /// It could not be reached: try again later.
    case unavailable(String)
}

/// The delivery loop that APNs and FCM share: get a credential, send, renew the credential once when the hub
/// calls it expired, and turn the verdict into an outcome, failing the rest of the batch on a configuration error.
struct CredentialedDelivery {
    let hub: String
    let failures: ConfigurationFailure
    let abort: BatchAbort
    let logger: Logger

    func run(
        credential: () async throws(CredentialFailure) -> String,
        renew: (String) async -> Void,
        send: (String) async throws -> HubVerdict
    ) async -> DeliveryOutcome {
        var renewed = false
        while true {
            if let failure = abort.failure { return failure }
            let token: String
            do {
                token = try await credential()
            } catch {
                switch error {
                case .refused(let reason):
                    return configurationFailure(code: "\(hub).credentialRefused", message: reason)
                case .unavailable(let reason):
                    return .retry(after: 0, code: "\(hub).credentialUnavailable", message: reason)
                }
            }
            let verdict: HubVerdict
            do {
                verdict = try await send(token)
            } catch {
                logger.debug("hub unreachable", metadata: ["richpush.hub": "\(hub)", "error": "\(error)"])
                return .retry(after: 0, code: "\(hub).unreachable", message: "\(hub) could not be reached: \(error)")
            }
            switch verdict {
            case .sent:
                failures.clear()
                return .sent
            case .credentialRejected where !renewed:
                renewed = true
                await renew(token)
            case .credentialRejected:
                return configurationFailure(code: "\(hub).credentialRejected", message: "\(hub) rejected a freshly issued credential")
            case .deviceGone(let code, let message):
                return .deviceGone(code: code, message: message)
            case .configuration(let code, let message):
                return configurationFailure(code: code, message: message)
            case .retry(let after, let code, let message):
                return .retry(after: after, code: code, message: message)
            case .failed(let code, let message):
                return .failed(code: code, message: message)
            }
        }
    }

    private func configurationFailure(code: String, message: String) -> DeliveryOutcome {
        let failure = failures.fail(code: code, message: message, logger: logger)
        abort.abort(with: failure)
        return failure
    }
}
