import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RichPushCore

/// A push to an endpoint a device named (a Web Push subscription, a WNS channel): a `POST` of `body` to `url`.
struct EndpointPush: Sendable {
    var url: URL
    var headers: [HTTP2Header]
    var body: ByteBuffer
}

/// What came of an ``EndpointPush``.
enum EndpointAnswer: Sendable {
    case answered(HubResponse)
    /// No answer came: the host could not be reached, or the exchange broke off.
    case unreachable(any Error)
    /// The push was never sent: its host was refused, with this outcome.
    case refused(DeliveryOutcome)
}

extension PinnedHTTPClients {
    /// Sends every push to its host and answers each, in order; `answered` hears of each answer as it arrives, with its
    /// push's index.
    ///
    /// The pushes to one origin go together: over HTTP/2 as streams of the origin's own ``HTTP2Session``, which opens
    /// connections up to its limit while every stream is taken (so a far push service is not held to one connection's
    /// streams a round trip), or, to an origin whose TLS does not offer HTTP/2, through async-http-client at most
    /// `maximumConcurrentRequests` at a time. Not async-http-client's HTTP/2: it keeps one connection an origin, and
    /// a connection of 1.37 stopped taking requests after a server had answered some before reading their bodies
    /// (docs/hubs.md).
    nonisolated func send(
        _ pushes: [EndpointPush], hub: String, maximumConcurrentRequests: Int,
        answered: @escaping @Sendable (Int, EndpointAnswer) -> Void = { _, _ in }
    ) async -> [EndpointAnswer] {
        var answers = [EndpointAnswer?](repeating: nil, count: pushes.count)
        let origins = Dictionary(grouping: pushes.indices) { index in
            let url = pushes[index].url
            return "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
        }
        await withTaskGroup(of: (positions: [Int], answers: [EndpointAnswer]).self) { group in
            for positions in origins.values {
                group.addTask {
                    let answers = await self.send(
                        positions.map { pushes[$0] }, hub: hub, http2: true, maximumConcurrentRequests: maximumConcurrentRequests
                    ) { position, answer in answered(positions[position], answer) }
                    return (positions, answers)
                }
            }
            for await origin in group {
                for (position, answer) in zip(origin.positions, origin.answers) { answers[position] = answer }
            }
        }
        return answers.map { $0! }
    }

    /// Sends pushes that all go to one origin.
    private nonisolated func send(
        _ pushes: [EndpointPush], hub: String, http2: Bool, maximumConcurrentRequests: Int,
        answered: @escaping @Sendable (Int, EndpointAnswer) -> Void
    ) async -> [EndpointAnswer] {
        let route: Route
        switch await connection(to: pushes[0].url, hub: hub, http2: http2) {
        case .ready(let ready): route = ready
        case .refused(let outcome):
            for index in pushes.indices { answered(index, .refused(outcome)) }
            return pushes.map { _ in .refused(outcome) }
        }
        switch route {
        case .http1(let client):
            return await pushes.concurrentMap(maximum: maximumConcurrentRequests, finished: answered) { push in
                await Self.send(push, through: client)
            }
        case .http2(let session):
            let requests = pushes.map { push in
                HTTP2Request(
                    path: push.url.requestTarget, headers: push.headers,
                    ownHeader: HTTP2Header("content-length", String(push.body.readableBytes), indexable: false), body: push.body)
            }
            var answers = await session.send(requests) { index, result in
                if !result.isWithoutHTTP2 { answered(index, EndpointAnswer(result)) }
            }
            .map { result in (result.isWithoutHTTP2, EndpointAnswer(result)) }
            let refused = answers.indices.filter { answers[$0].0 }
            guard !refused.isEmpty else { return answers.map(\.1) }
            // Nothing was sent on a connection that did not become HTTP/2: each push goes again the other way.
            await speaksNoHTTP2(pushes[0].url)
            let again = await send(
                refused.map { pushes[$0] }, hub: hub, http2: false, maximumConcurrentRequests: maximumConcurrentRequests
            ) { position, answer in answered(refused[position], answer) }
            for (index, answer) in zip(refused, again) { answers[index] = (false, answer) }
            return answers.map(\.1)
        }
    }

    private static func send(_ push: EndpointPush, through client: HTTPClient) async -> EndpointAnswer {
        var request = HTTPClientRequest(url: push.url.absoluteString)
        request.method = .POST
        request.headers = HTTPHeaders(push.headers.map { ($0.name, $0.value) })
        request.body = .bytes(push.body)
        do {
            return .answered(try await client.hubExecute(request))
        } catch {
            return .unreachable(error)
        }
    }
}

extension EndpointAnswer {
    init(_ result: Result<HubResponse, any Error>) {
        switch result {
        case .success(let response): self = .answered(response)
        case .failure(let error): self = .unreachable(error)
        }
    }
}

extension Result<HubResponse, any Error> {
    /// The connection's TLS settled on something other than HTTP/2, before any request went.
    fileprivate var isWithoutHTTP2: Bool {
        guard case .failure(let error) = self, case .notHTTP2 = error as? HTTP2TransportError else { return false }
        return true
    }
}

extension URL {
    /// The path and query as the URL spells them, percent-encoding and all: what a request line or `:path` names.
    fileprivate var requestTarget: String {
        let path = path(percentEncoded: true)
        let query = query(percentEncoded: true).map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }
}

/// A job's push, or the outcome that settles its delivery before anything is sent.
enum PreparedPush: Sendable {
    case ready(EndpointPush)
    case settled(DeliveryOutcome)
}

/// A batch of jobs split into the pushes that go and the outcomes settled before anything went.
struct EndpointBatch {
    private(set) var pushes: [EndpointPush] = []
    /// The position in the batch of each push.
    private(set) var positions: [Int] = []
    private var outcomes: [DeliveryOutcome?]

    /// Prepares the push of each job (given with its index), spread over the cores (encrypting a Web Push is most of
    /// its cost); `progress` hears of the outcomes settled at once.
    init(_ jobs: [DeliveryJob], progress: DeliveryProgress, prepare: @escaping @Sendable (Int, DeliveryJob) async -> PreparedPush) async {
        outcomes = Array(repeating: nil, count: jobs.count)
        let size = max(64, (jobs.count + ProcessInfo.processInfo.activeProcessorCount - 1) / ProcessInfo.processInfo.activeProcessorCount)
        let parts = stride(from: 0, to: jobs.count, by: size).map { $0..<min($0 + size, jobs.count) }
        let prepared = await parts.concurrentMap(maximum: parts.count) { part in
            var pushes: [PreparedPush] = []
            pushes.reserveCapacity(part.count)
            for index in part { pushes.append(await prepare(index, jobs[index])) }
            return pushes
        }
        for (position, push) in prepared.joined().enumerated() {
            switch push {
            case .ready(let push):
                pushes.append(push)
                positions.append(position)
            case .settled(let outcome):
                outcomes[position] = outcome
                progress.answered(position, outcome)
            }
        }
    }

    /// Every job's outcome, in the batch's order, given those of ``pushes``.
    func outcomes(sent: [DeliveryOutcome]) -> [DeliveryOutcome] {
        var outcomes = outcomes
        for (position, outcome) in zip(positions, sent) { outcomes[position] = outcome }
        return outcomes.map { $0! }
    }
}

extension HubVerdict {
    /// The verdict of a delivery settled before its push went.
    init(settled outcome: DeliveryOutcome) {
        switch outcome {
        case .sent: self = .sent
        case .retry(let after, let code, let message), .postponed(let after, let code, let message):
            self = .retry(after: after, code: code, message: message)
        case .failed(let code, let message): self = .failed(code: code, message: message)
        case .deviceGone(let code, let message): self = .deviceGone(code: code, message: message)
        }
    }
}
