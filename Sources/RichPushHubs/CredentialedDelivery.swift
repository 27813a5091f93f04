import Foundation
import Logging
import RichPushCore

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
    let configuration: ConfigurationHealth
    let abort: BatchAbort
    let logger: Logger

    /// One push at a time: `send` makes one request with the credential.
    func run(
        credential: () async throws(CredentialFailure) -> String,
        renew: (String) async -> Void,
        send: (String) async throws -> HubVerdict
    ) async -> DeliveryOutcome {
        await runBatch(count: 1, credential: credential, renew: renew, progress: { _, _ in }) { _, token, _ in
            do {
                return [.success(try await send(token))]
            } catch {
                return [.failure(error)]
            }
        }[0]
    }

    /// `count` pushes together: `send` makes one request per index it is given, all with one credential, and
    /// answers in the same order; it may tell each answer as it arrives to the closure it is given, with its index.
    /// Those the hub refuses for an expired credential go again, once, with a new one. `progress` hears of each
    /// outcome that is final when its answer arrives.
    ///
    /// Until the hub has accepted a push with this configuration, one push goes ahead alone: a rejected key or
    /// topic then costs one request, not one per device.
    func runBatch(
        count: Int,
        credential: () async throws(CredentialFailure) -> String,
        renew: (String) async -> Void,
        progress: @escaping @Sendable (Int, DeliveryOutcome) -> Void,
        send: ([Int], String, @escaping @Sendable (Int, Result<HubVerdict, any Error>) -> Void) async -> [Result<HubVerdict, any Error>]
    ) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: count)
        var pending = Array(0..<count)
        var renewed = false
        var probe = !configuration.isConfirmed && count > 1
        while !pending.isEmpty {
            if let failure = abort.failure {
                for index in pending { outcomes[index] = failure }
                break
            }
            let token: String
            do {
                token = try await credential()
            } catch {
                let failure: DeliveryOutcome =
                    switch error {
                    case .refused(let reason): configurationFailure(code: "\(hub).credentialRefused", message: reason)
                    case .unavailable(let reason): .retry(after: 0, code: "\(hub).credentialUnavailable", message: reason)
                    }
                for index in pending { outcomes[index] = failure }
                break
            }
            let round = probe ? [pending[0]] : pending
            probe = false
            var rejected: [Int] = []
            let hub = hub
            let answers = await send(round, token) { index, answer in
                if let outcome = Self.settledOutcome(of: answer, hub: hub) { progress(index, outcome) }
            }
            for (index, answer) in zip(round, answers) {
                switch answer {
                case .failure(let error):
                    logger.debug("hub unreachable", metadata: ["richpush.hub": "\(hub)", "error": "\(error)"])
                    outcomes[index] = Self.settledOutcome(of: answer, hub: hub)
                case .success(.credentialRejected) where !renewed:
                    rejected.append(index)
                case .success(let verdict):
                    outcomes[index] = outcome(of: verdict)
                }
            }
            if !rejected.isEmpty {
                renewed = true
                await renew(token)
            }
            pending = rejected + pending.dropFirst(round.count)
        }
        return outcomes.map { $0! }
    }

    /// What a verdict means for its delivery; a credential rejected here was already renewed once.
    private func outcome(of verdict: HubVerdict) -> DeliveryOutcome {
        switch verdict {
        case .sent:
            configuration.clear()
            return .sent
        case .credentialRejected:
            return configurationFailure(code: "\(hub).credentialRejected", message: "\(hub) rejected a freshly issued credential")
        case .configuration(let code, let message):
            return configurationFailure(code: code, message: message)
        case .deviceGone, .retry, .failed:
            return Self.settledOutcome(of: .success(verdict), hub: hub)!
        }
    }

    /// The outcome an answer settles at once; nil where the batch has more to do first: renew the credential, or
    /// fail the configuration and the rest of the batch with it.
    private static func settledOutcome(of answer: Result<HubVerdict, any Error>, hub: String) -> DeliveryOutcome? {
        switch answer {
        case .failure(let error):
            .retry(after: 0, code: "\(hub).unreachable", message: "\(hub) could not be reached: \(error)")
        case .success(.sent):
            .sent
        case .success(.deviceGone(let code, let message)):
            .deviceGone(code: code, message: message)
        case .success(.retry(let after, let code, let message)):
            .retry(after: after, code: code, message: message)
        case .success(.failed(let code, let message)):
            .failed(code: code, message: message)
        case .success(.credentialRejected), .success(.configuration):
            nil
        }
    }

    private func configurationFailure(code: String, message: String) -> DeliveryOutcome {
        let failure = configuration.fail(code: code, message: message, logger: logger)
        abort.abort(with: failure)
        return failure
    }
}
