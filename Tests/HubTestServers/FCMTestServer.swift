import Crypto
public import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOConcurrencyHelpers
import NIOCore
import _CryptoExtras

/// A loopback Google OAuth token endpoint and FCM HTTP v1 send endpoint: the service account's RS256 assertion is
/// verified with its public key, the bearer token must be one it issued, the message's data must hold strings, a
/// `notification` a body and an http(s) image link, its Android options the types FCM takes, and errors come back in
/// FCM's `google.rpc.Status` shape with `FcmError` details.
public final class FCMTestServer: Sendable {
    /// One message that passed every check.
    public struct Message: Sendable, Equatable {
        public var token: String
        public var data: [String: String]
        public var androidPriority: String?
        public var ttl: String?
        public var accessToken: String
        /// The `notification` of an alert (`title`, `body`, `image`); nil for a data-only message.
        public var notification: [String: String]?
        /// `android.notification` (`click_action`, `tag`, `sound`, `channel_id`).
        public var androidNotification: [String: String]?
        /// The body as sent.
        public var body: String
    }

    /// An error FCM answers for a device.
    public struct Answer: Sendable {
        public var status: Int
        public var canonicalStatus: String
        public var errorCode: String?
        public var retryAfter: String?

        public init(status: Int, canonicalStatus: String, errorCode: String? = nil, retryAfter: String? = nil) {
            self.status = status
            self.canonicalStatus = canonicalStatus
            self.errorCode = errorCode
            self.retryAfter = retryAfter
        }

        public static let unregistered = Answer(status: 404, canonicalStatus: "NOT_FOUND", errorCode: "UNREGISTERED")
        public static let senderIdMismatch = Answer(status: 403, canonicalStatus: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH")
        public static let quotaExceeded = Answer(status: 429, canonicalStatus: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED", retryAfter: "1")
        public static let unavailable = Answer(status: 503, canonicalStatus: "UNAVAILABLE", errorCode: "UNAVAILABLE")
        public static let thirdPartyAuthError = Answer(status: 401, canonicalStatus: "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR")
    }

    struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private struct State {
        var accepted: [Message] = []
        var answers: [String: [Answer]] = [:]
        var issuedTokens: Set<String> = []
        var exchanges = 0
        var refuseAssertions: String?
        var violations: [String] = []
        var delay: Duration = .zero
    }

    public static let projectId = "richpush-test"
    public static let clientEmail = "richpush-sender@richpush-test.iam.gserviceaccount.com"

    /// The service-account key file the gateway is configured with.
    public let serviceAccountFile: String
    /// The CA of the server's certificate, which the gateway must trust (`--tls-ca-file`).
    public let authority: TestCertificateAuthority
    public let server: LoopbackServer
    private let state: NIOLockedValueBox<State>

    public var endpoint: String { "https://127.0.0.1:\(server.port)" }

    private init(serviceAccountFile: String, authority: TestCertificateAuthority, server: LoopbackServer, state: NIOLockedValueBox<State>) {
        self.serviceAccountFile = serviceAccountFile
        self.authority = authority
        self.server = server
        self.state = state
    }

    /// Starts the server over TLS, with HTTP/2 as FCM speaks it, its certificate from `authority` (a fresh CA whose
    /// files go into `directory` when none is given: a gateway trusts one CA file, so servers of one test share it).
    public static func start(directory: URL, authority: TestCertificateAuthority? = nil) async throws -> FCMTestServer {
        let authority = try authority ?? TestCertificateAuthority(directory: directory)
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PublicKey(pem: key.publicKey.pemRepresentation), digestAlgorithm: .sha256)
        let state = NIOLockedValueBox(State())
        let router = Router(context: LoopbackContext.self)
        let tokenURI = NIOLockedValueBox("")
        router.post("token") { request, _ in
            try await Self.exchange(request, keys: keys, tokenURI: tokenURI.withLockedValue { $0 }, state: state)
        }
        router.post("v1/projects/:project/messages:send") { request, context in
            try await Self.send(request, project: context.parameters.get("project") ?? "", state: state)
        }
        let server = try await LoopbackServer.start(router, tls: authority.serverTLSConfiguration())
        let uri = "https://127.0.0.1:\(server.port)/token"
        tokenURI.withLockedValue { $0 = uri }
        let account: [String: String] = [
            "type": "service_account", "project_id": projectId, "private_key_id": "0123456789abcdef",
            "private_key": key.pkcs8PEMRepresentation, "client_email": clientEmail, "client_id": "1000000000000000000",
            "token_uri": uri,
        ]
        let file = directory.appendingPathComponent("service-account.json").path
        try JSONSerialization.data(withJSONObject: account, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: file))
        return FCMTestServer(serviceAccountFile: file, authority: authority, server: server, state: state)
    }

    public func stop() async {
        await server.stop()
    }

    public var accepted: [Message] { state.withLockedValue { $0.accepted } }
    public var violations: [String] { state.withLockedValue { $0.violations } }
    /// How many assertions were exchanged for access tokens.
    public var tokenExchanges: Int { state.withLockedValue { $0.exchanges } }

    public func answer(_ deviceToken: String, with answers: Answer...) {
        state.withLockedValue { $0.answers[deviceToken, default: []].append(contentsOf: answers) }
    }

    /// Holds every send's answer back this long, as a distant service would, so many sends are in flight at once.
    public func delayAnswers(by delay: Duration) {
        state.withLockedValue { $0.delay = delay }
    }

    /// Every access token issued so far stops working, as when Google revokes or expires them.
    public func revokeAccessTokens() {
        state.withLockedValue { $0.issuedTokens.removeAll() }
    }

    /// The token endpoint refuses assertions with OAuth's `invalid_grant` and this description.
    public func refuseAssertions(_ description: String?) {
        state.withLockedValue { $0.refuseAssertions = description }
    }

    private static func exchange(_ request: Request, keys: JWTKeyCollection, tokenURI: String, state: NIOLockedValueBox<State>) async throws
        -> Response
    {
        let form = formFields(String(buffer: try await request.body.collect(upTo: 64 * 1024)))
        func refuse(_ error: String, _ description: String, violation: Bool = true) -> Response {
            if violation { state.withLockedValue { $0.violations.append("token: \(description)") } }
            return json(400, ["error": error, "error_description": description])
        }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else {
            return refuse("invalid_request", "the body must be form-encoded")
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return refuse("unsupported_grant_type", "grant_type must be the JWT bearer grant")
        }
        let claims: Assertion
        do {
            claims = try await keys.verify(assertion, as: Assertion.self)
        } catch {
            return refuse("invalid_grant", "Invalid JWT Signature.")
        }
        let now = Int(Date.now.timeIntervalSince1970)
        guard claims.iss == clientEmail, claims.aud == tokenURI,
            claims.scope.split(separator: " ").contains("https://www.googleapis.com/auth/firebase.messaging"),
            claims.exp > now, claims.exp - claims.iat <= 3600, claims.iat <= now + 60
        else { return refuse("invalid_grant", "Invalid JWT: claims") }
        if let refused = state.withLockedValue({ $0.refuseAssertions }) { return refuse("invalid_grant", refused, violation: false) }
        let token = "ya29.test-" + UUID().uuidString
        state.withLockedValue { state in
            state.issuedTokens.insert(token)
            state.exchanges += 1
        }
        return json(200, ["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
    }

    private static func send(_ request: Request, project: String, state: NIOLockedValueBox<State>) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        let delay = state.withLockedValue { $0.delay }
        if delay > .zero { try await Task.sleep(for: delay) }
        func error(_ answer: Answer, _ message: String, violation: Bool) -> Response {
            if violation { state.withLockedValue { $0.violations.append("send: \(message)") } }
            var error: [String: Any] = ["code": answer.status, "message": message, "status": answer.canonicalStatus]
            if let code = answer.errorCode {
                error["details"] = [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code]]
            }
            var response = json(answer.status, ["error": error])
            if let retryAfter = answer.retryAfter { response.headers[.retryAfter] = retryAfter }
            return response
        }
        let invalid = Answer(status: 400, canonicalStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT")
        guard project == projectId else { return error(Answer(status: 404, canonicalStatus: "NOT_FOUND"), "project not found", violation: true) }
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
            state.withLockedValue({ $0.issuedTokens.contains(String(authorization.dropFirst(7))) })
        else {
            return error(Answer(status: 401, canonicalStatus: "UNAUTHENTICATED"), "Request had invalid authentication credentials.", violation: false)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any],
            let message = object["message"] as? [String: Any]
        else { return error(invalid, "the body has no message", violation: true) }
        let notification = message["notification"].map { $0 as? [String: String] }
        if let notification {
            guard let notification, notification["body"] != nil, Set(notification.keys).isSubset(of: ["title", "body", "image"]) else {
                return error(invalid, "a notification holds string title, body and image", violation: true)
            }
            if let image = notification["image"], URL(string: image)?.scheme.map({ ["http", "https"].contains($0) }) != true {
                return error(invalid, "notification.image must be an http(s) URL", violation: true)
            }
        }
        guard let token = message["token"] as? String, message["topic"] == nil, message["condition"] == nil else {
            return error(invalid, "the message must name exactly one token", violation: true)
        }
        guard let data = message["data"] as? [String: String], (message["data"] as? [String: Any])?.values.allSatisfy({ $0 is String }) == true,
            Self.isRichPush(data) || Self.isStatePush(data)
        else {
            return error(
                invalid, "data must map richId, richType and richMessage to strings, or be a state push (richEvent, richId and the states)",
                violation: true)
        }
        let android = message["android"] as? [String: Any]
        let androidNotification = android?["notification"].map { $0 as? [String: String] }
        if let androidNotification {
            guard let androidNotification, Set(androidNotification.keys).isSubset(of: ["click_action", "tag", "sound", "channel_id"]) else {
                return error(invalid, "android.notification holds string click_action, tag, sound and channel_id", violation: true)
            }
        }
        let priority = android?["priority"] as? String
        let ttl = android?["ttl"] as? String
        if let priority, !["NORMAL", "HIGH"].contains(priority) { return error(invalid, "android.priority is invalid", violation: true) }
        if let ttl, ttl.range(of: #"^\d+(\.\d{1,9})?s$"#, options: .regularExpression) == nil {
            return error(invalid, "android.ttl is not a duration", violation: true)
        }
        guard body.readableBytes <= 4096 else { return error(invalid, "Message is too big", violation: true) }
        let accepted = Message(
            token: token, data: data, androidPriority: priority, ttl: ttl, accessToken: String(authorization.dropFirst(7)),
            notification: notification ?? nil, androidNotification: androidNotification ?? nil, body: String(buffer: body))
        let planned = state.withLockedValue { state -> Answer? in
            if var queued = state.answers[token], !queued.isEmpty {
                let next = queued.removeFirst()
                state.answers[token] = queued
                return next
            }
            state.accepted.append(accepted)
            return nil
        }
        if let planned { return error(planned, "answered as asked", violation: false) }
        return json(200, ["name": "projects/\(projectId)/messages/\(UUID().uuidString)"])
    }
}

/// A JSON response with `status`.
extension FCMTestServer {
    static func isRichPush(_ data: [String: String]) -> Bool {
        data["richId"] != nil && data["richType"] != nil && data["richMessage"] != nil && data["richEvent"] == nil
    }

    /// `{"richEvent": "state", "richId", "readState", "userActionState"}` or `{"richEvent": "deleted", "richId"}`, nothing else.
    static func isStatePush(_ data: [String: String]) -> Bool {
        switch data["richEvent"] {
        case "state": Set(data.keys) == ["richEvent", "richId", "readState", "userActionState"]
        case "deleted": Set(data.keys) == ["richEvent", "richId"]
        default: false
        }
    }
}

/// The fields of an `application/x-www-form-urlencoded` body, as an OAuth token endpoint reads them.
func formFields(_ body: String) -> [String: String] {
    var form: [String: String] = [:]
    for pair in body.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map {
            String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
        }
        if parts.count == 2 { form[parts[0]] = parts[1] }
    }
    return form
}

func json(_ status: Int, _ object: [String: Any]) -> Response {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return Response(
        status: .init(code: status), headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

extension Data {
    init(buffer: ByteBuffer) {
        self = Data(buffer.readableBytesView)
    }
}
