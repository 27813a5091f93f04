import Crypto
public import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOConcurrencyHelpers
import NIOCore

/// A loopback APNs provider API: HTTP/2 over TLS, `POST /3/device/<token>`, token auth checked against the
/// public half of the `.p8` key it hands out, every header and the payload checked as Apple documents them, and
/// Apple's error bodies for the answers a test asks for.
public final class APNsTestServer: Sendable {
    /// One push that passed every check.
    public struct Push: Sendable, Equatable {
        public var deviceToken: String
        public var apnsId: String?
        public var pushType: String
        public var topic: String
        public var priority: String
        public var expiration: String?
        public var collapseId: String?
        /// The JSON body as sent.
        public var payload: String
        public var providerToken: String
    }

    /// What the server answers for a device: a status with Apple's `reason`, and optionally `Retry-After`.
    public struct Answer: Sendable {
        public var status: Int
        public var reason: String?
        public var retryAfter: String?

        public init(status: Int, reason: String? = nil, retryAfter: String? = nil) {
            self.status = status
            self.reason = reason
            self.retryAfter = retryAfter
        }
    }

    struct ProviderClaims: JWTPayload {
        var iss: String
        var iat: Int

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private struct State {
        var accepted: [Push] = []
        var answers: [String: [Answer]] = [:]
        var expiredProviderTokens: Set<String> = []
        var providerTokens: Set<String> = []
        var latestProviderToken: String?
        var violations: [String] = []
        var delay: Duration = .zero
        /// With a pace, one answer goes every `pace`: the earliest instant the next may go.
        var pace: Duration = .zero
        var nextAnswerAt = ContinuousClock.now
        var heldTokens: Set<String> = []
        var held: [CheckedContinuation<Void, Never>] = []
        var open = 0
        var mostOpen = 0
        var failingWith: Answer?
        var failed = 0
    }

    public static let keyId = "RPKEY00001"
    public static let teamId = "RPTEAM0001"
    public static let topic = "com.example.richpush"

    /// The `.p8` file the gateway signs provider tokens with.
    public let keyFile: String
    public let authority: TestCertificateAuthority
    public let server: LoopbackServer
    private let state: NIOLockedValueBox<State>

    public var endpoint: String { "https://localhost:\(server.port)" }

    private init(keyFile: String, authority: TestCertificateAuthority, server: LoopbackServer, state: NIOLockedValueBox<State>) {
        self.keyFile = keyFile
        self.authority = authority
        self.server = server
        self.state = state
    }

    /// Starts the server with a fresh key and CA whose files go into `directory`.
    public static func start(directory: URL) async throws -> APNsTestServer {
        let key = P256.Signing.PrivateKey()
        let keyFile = directory.appendingPathComponent("AuthKey_\(keyId).p8").path
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(pem: key.publicKey.pemRepresentation), kid: JWKIdentifier(string: keyId))
        let authority = try TestCertificateAuthority(directory: directory)
        let state = NIOLockedValueBox(State())
        let router = Router(context: LoopbackContext.self)
        router.post("3/device/:token") { request, context in
            try await Self.handle(request, context: context, keys: keys, state: state)
        }
        let server = try await LoopbackServer.start(router, tls: authority.serverTLSConfiguration())
        return APNsTestServer(keyFile: keyFile, authority: authority, server: server, state: state)
    }

    public func stop() async {
        releaseHeldAnswers()
        await server.stop()
    }

    /// Every push that passed the checks, in arrival order.
    public var accepted: [Push] { state.withLockedValue { $0.accepted } }

    /// The most requests that were waiting for their answer at one moment.
    public var mostRequestsOpenAtOnce: Int { state.withLockedValue { $0.mostOpen } }
    /// Requests that broke the protocol (bad JWT, header or payload), each with its reason.
    public var violations: [String] { state.withLockedValue { $0.violations } }
    /// The distinct provider tokens seen.
    public var providerTokens: Set<String> { state.withLockedValue { $0.providerTokens } }

    /// Answers the next pushes to `deviceToken` with `answers`, one each, then 200 again.
    public func answer(_ deviceToken: String, with answers: Answer...) {
        state.withLockedValue { $0.answers[deviceToken, default: []].append(contentsOf: answers) }
    }

    /// Answers every push with `answer` from now on, as an APNs in trouble does, until called with nil.
    public func failEveryPush(with answer: Answer?) {
        state.withLockedValue { $0.failingWith = answer }
    }

    /// Pushes answered by ``failEveryPush(with:)``'s answer.
    public var failedPushes: Int { state.withLockedValue { $0.failed } }

    /// From now on the latest provider token is refused as `ExpiredProviderToken`, as APNs does an hour after `iat`.
    public func expireLatestProviderToken() {
        state.withLockedValue { state in
            if let token = state.latestProviderToken { state.expiredProviderTokens.insert(token) }
        }
    }

    /// Holds every answer this long, so a test can catch requests in flight.
    public func delayAnswers(by delay: Duration) {
        state.withLockedValue { $0.delay = delay }
    }

    /// Answers one push at a time, each `interval` after the last, as a hub that works through a queue.
    public func paceAnswers(every interval: Duration) {
        state.withLockedValue { $0.pace = interval }
    }

    /// Holds the answers to `deviceToken` until ``releaseHeldAnswers()``.
    public func holdAnswers(to deviceToken: String) {
        state.withLockedValue { _ = $0.heldTokens.insert(deviceToken) }
    }

    public func releaseHeldAnswers() {
        let held = state.withLockedValue { state in
            state.heldTokens = []
            defer { state.held = [] }
            return state.held
        }
        for request in held { request.resume() }
    }

    /// Waits out the delay, the pace or the hold that applies to an answer to `token`.
    private static func waitForTurn(of token: String, state: NIOLockedValueBox<State>) async throws {
        let (delay, slot) = state.withLockedValue { state -> (Duration, ContinuousClock.Instant?) in
            guard state.pace > .zero else { return (state.delay, nil) }
            let slot = max(.now, state.nextAnswerAt)
            state.nextAnswerAt = slot + state.pace
            return (state.delay, slot)
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if let slot { try await Task.sleep(until: slot) }
        await withCheckedContinuation { (request: CheckedContinuation<Void, Never>) in
            let goes = state.withLockedValue { state -> Bool in
                guard state.heldTokens.contains(token) else { return true }
                state.held.append(request)
                return false
            }
            if goes { request.resume() }
        }
    }

    private static func handle(_ request: Request, context: LoopbackContext, keys: JWTKeyCollection, state: NIOLockedValueBox<State>) async throws
        -> Response
    {
        let token = context.parameters.get("token") ?? ""
        state.withLockedValue { state in
            state.open += 1
            state.mostOpen = max(state.mostOpen, state.open)
        }
        defer { state.withLockedValue { $0.open -= 1 } }
        try await waitForTurn(of: token, state: state)
        let body = try await request.body.collect(upTo: 64 * 1024)
        func refuse(_ status: Int, _ reason: String, violation: Bool = true) -> Response {
            if violation { state.withLockedValue { $0.violations.append("\(status) \(reason)") } }
            return answer(Answer(status: status, reason: reason), apnsId: request.headers[HTTPField.Name("apns-id")!])
        }
        guard context.isHTTP2 else { return refuse(400, "HTTP2Required") }
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else {
            return refuse(403, "MissingProviderToken")
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        let claims: ProviderClaims
        do {
            claims = try await keys.verify(jwt, as: ProviderClaims.self)
        } catch {
            return refuse(403, "InvalidProviderToken")
        }
        let now = Int(Date.now.timeIntervalSince1970)
        guard claims.iss == teamId, claims.iat <= now + 60 else { return refuse(403, "InvalidProviderToken") }
        let expired = state.withLockedValue { state -> Bool in
            state.providerTokens.insert(jwt)
            state.latestProviderToken = jwt
            return state.expiredProviderTokens.contains(jwt)
        }
        if expired || now - claims.iat > 3600 { return refuse(403, "ExpiredProviderToken", violation: false) }
        func header(_ name: String) -> String? { request.headers[HTTPField.Name(name)!] }
        guard let topic = header("apns-topic") else { return refuse(400, "MissingTopic") }
        guard let pushType = header("apns-push-type"), ["alert", "background", "liveactivity"].contains(pushType) else {
            return refuse(400, "InvalidPushType")
        }
        // Apple: a Live Activity push goes to the app's topic with `.push-type.liveactivity` after it.
        guard topic == (pushType == "liveactivity" ? Self.topic + ".push-type.liveactivity" : Self.topic) else {
            return refuse(400, "TopicDisallowed")
        }
        let priority = header("apns-priority") ?? "10"
        guard ["5", "10"].contains(priority) else { return refuse(400, "BadPriority") }
        if let id = header("apns-id"), UUID(uuidString: id) == nil { return refuse(400, "BadMessageId") }
        if let expiration = header("apns-expiration"), Int64(expiration) == nil { return refuse(400, "BadExpirationDate") }
        if let collapseId = header("apns-collapse-id"), collapseId.utf8.count > 64 { return refuse(400, "BadCollapseId") }
        guard body.readableBytes > 0 else { return refuse(400, "PayloadEmpty") }
        guard body.readableBytes <= 4096 else { return refuse(413, "PayloadTooLarge") }
        let payload = String(buffer: body)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any],
            let aps = object["aps"] as? [String: Any]
        else { return refuse(400, "BadPayload") }
        if pushType == "liveactivity" {
            // Apple: a timestamp in seconds, the event, the content state; a start names the attributes' type and
            // carries them; an alert has a title or body; dates are seconds.
            guard aps["timestamp"] is Int, let event = aps["event"] as? String, ["start", "update", "end"].contains(event),
                aps["content-state"] is [String: Any], aps["content-available"] == nil
            else { return refuse(400, "BadPayload") }
            if event == "start", !(aps["attributes-type"] is String) || !(aps["attributes"] is [String: Any]) { return refuse(400, "BadPayload") }
            for key in ["stale-date", "dismissal-date"] where aps[key].map({ !($0 is Int) }) ?? false { return refuse(400, "BadPayload") }
            if let alert = aps["alert"], !(alert is [String: Any]) { return refuse(400, "BadPayload") }
        } else if pushType == "background" {
            // Apple: a content-available push is sent at priority 5 and carries no alert.
            guard priority == "5", aps["content-available"] as? Int == 1, aps["alert"] == nil else { return refuse(400, "BadPriority") }
            // A background push that would show or sound anything is not one.
            guard Set(aps.keys).isSubset(of: ["content-available", "sound"]), (aps["sound"] as? String)?.isEmpty ?? true else {
                return refuse(400, "BadPayload")
            }
        } else {
            guard let alert = aps["alert"] as? [String: Any], alert["body"] is String, alert["title"].map({ $0 is String }) ?? true
            else { return refuse(400, "BadPayload") }
            if let badge = aps["badge"], !(badge is Int) { return refuse(400, "BadPayload") }
            for key in ["sound", "category", "thread-id"] where aps[key].map({ !($0 is String) }) ?? false { return refuse(400, "BadPayload") }
            // Apple: the four interruption levels by name, and a relevance score from 0 to 1.
            if let level = aps["interruption-level"], !["passive", "active", "time-sensitive", "critical"].contains(level as? String ?? "") {
                return refuse(400, "BadPayload")
            }
            if let score = aps["relevance-score"], !((score as? Double).map { (0...1).contains($0) } ?? false) { return refuse(400, "BadPayload") }
        }
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit }) else {
            return refuse(400, "BadDeviceToken")
        }
        let push = Push(
            deviceToken: token, apnsId: header("apns-id"), pushType: pushType, topic: topic, priority: priority,
            expiration: header("apns-expiration"),
            collapseId: header("apns-collapse-id"), payload: payload, providerToken: jwt)
        let planned = state.withLockedValue { state -> Answer? in
            if let failure = state.failingWith {
                state.failed += 1
                return failure
            }
            if var queued = state.answers[token], !queued.isEmpty {
                let next = queued.removeFirst()
                state.answers[token] = queued
                return next
            }
            state.accepted.append(push)
            return nil
        }
        return answer(planned ?? Answer(status: 200), apnsId: push.apnsId)
    }

    private static func answer(_ answer: Answer, apnsId: String?) -> Response {
        var headers: HTTPFields = [HTTPField.Name("apns-id")!: apnsId ?? UUID().uuidString]
        if let retryAfter = answer.retryAfter { headers[.retryAfter] = retryAfter }
        guard let reason = answer.reason else { return Response(status: .init(code: answer.status), headers: headers) }
        var fields: [String: Any] = ["reason": reason]
        if answer.status == 410 { fields["timestamp"] = Int64(Date.now.timeIntervalSince1970 * 1000) }
        headers[.contentType] = "application/json"
        let json = try! JSONSerialization.data(withJSONObject: fields)
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
}
