import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import RichPushCore

/// A loopback Azure Notification Hub: every request must carry a valid SAS token for the hub's resource URI,
/// installations are kept as the installations API stores them, and a send is evaluated the way the hub does it,
/// against its installations' tags (with its 20/6 tag limit), recording which installations it reached.
public final class NotificationHubsTestServer: Sendable {
    public struct Installation: Sendable, Equatable {
        public var id: String
        public var platform: String
        public var pushChannel: String
        public var tags: [String]
    }

    /// One accepted send.
    public struct Send: Sendable, Equatable {
        public var format: String
        /// The `ServiceBusNotification-Tags` expression of an audience send.
        public var tags: String?
        /// The `ServiceBusNotification-DeviceHandle` of a direct send.
        public var deviceHandle: String?
        public var pushType: String?
        public var body: String
        /// The installations the hub fanned the send out to.
        public var reached: [String]
    }

    private struct State {
        var installations: [String: Installation] = [:]
        var sends: [Send] = []
        var answers: [Int] = []
        var violations: [String] = []
    }

    public static let namespace = "richpush-test"
    public static let hub = "richpush-hub"
    public static let keyName = "DefaultFullSharedAccessSignature"
    public static let key = "c2VjcmV0LWtleS1vZi10aGUtdGVzdC1odWItMDEyMzQ1Njc4OQ=="

    public static var connectionString: String {
        "Endpoint=sb://\(namespace).servicebus.windows.net/;SharedAccessKeyName=\(keyName);SharedAccessKey=\(key)"
    }

    public let server: LoopbackServer
    private let state: NIOLockedValueBox<State>

    /// The base URL to configure as `RICHPUSH_ANH_ENDPOINT`.
    public var endpoint: String { "http://127.0.0.1:\(server.port)" }

    private init(server: LoopbackServer, state: NIOLockedValueBox<State>) {
        self.server = server
        self.state = state
    }

    public static func start() async throws -> NotificationHubsTestServer {
        let state = NIOLockedValueBox(State())
        let router = Router(context: LoopbackContext.self)
        router.put(":hub/installations/:id") { request, context in
            try await Self.putInstallation(request, context: context, state: state)
        }
        router.delete(":hub/installations/:id") { request, context in
            if let refusal = Self.refusal(of: request, context: context, state: state) { return refusal }
            let id = context.parameters.get("id") ?? ""
            state.withLockedValue { _ = $0.installations.removeValue(forKey: id) }
            return Response(status: .ok)
        }
        router.post(":hub/messages") { request, context in
            try await Self.send(request, context: context, state: state)
        }
        return NotificationHubsTestServer(server: try await LoopbackServer.start(router), state: state)
    }

    public func stop() async {
        await server.stop()
    }

    public var installations: [String: Installation] { state.withLockedValue { $0.installations } }
    public var sends: [Send] { state.withLockedValue { $0.sends } }
    public var violations: [String] { state.withLockedValue { $0.violations } }

    /// Answers the next sends with these statuses, one each, then accepts again.
    public func answerSends(with statuses: Int...) {
        state.withLockedValue { $0.answers.append(contentsOf: statuses) }
    }

    /// Checks the SAS token as the service does; returns the answer to a request that fails the check.
    private static func refusal(of request: Request, context: LoopbackContext, state: NIOLockedValueBox<State>) -> Response? {
        func refuse(_ status: Int, _ reason: String) -> Response {
            state.withLockedValue { $0.violations.append(reason) }
            return Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(string: reason)))
        }
        guard context.parameters.get("hub") == hub else { return refuse(404, "no hub \(context.parameters.get("hub") ?? "")") }
        guard request.uri.queryParameters.get("api-version") != nil else { return refuse(400, "api-version is missing") }
        guard let header = request.headers[.authorization], header.hasPrefix("SharedAccessSignature ") else {
            return refuse(401, "MissingToken: no SharedAccessSignature")
        }
        var fields: [String: String] = [:]
        for pair in header.dropFirst("SharedAccessSignature ".count).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let sr = fields["sr"], let sig = fields["sig"]?.removingPercentEncoding, let se = fields["se"], let expiry = Int64(se),
            let skn = fields["skn"]
        else { return refuse(401, "InvalidToken: sr, sig, se and skn are required") }
        let resource = "https://\(namespace).servicebus.windows.net/\(hub)"
        guard sr.removingPercentEncoding == resource, !sr.contains("/") else { return refuse(401, "InvalidToken: sr is not \(resource)") }
        guard skn == keyName else { return refuse(401, "InvalidToken: unknown key \(skn)") }
        guard expiry > Int64(Date.now.timeIntervalSince1970) else { return refuse(401, "ExpiredToken") }
        let expected = HMAC<SHA256>.authenticationCode(for: Data("\(sr)\n\(se)".utf8), using: SymmetricKey(data: Data(key.utf8)))
        guard Data(base64Encoded: sig) == Data(expected) else { return refuse(401, "InvalidSignature") }
        return nil
    }

    private static func putInstallation(_ request: Request, context: LoopbackContext, state: NIOLockedValueBox<State>) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        if let refusal = refusal(of: request, context: context, state: state) { return refusal }
        let id = context.parameters.get("id") ?? ""
        guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any],
            object["installationId"] as? String == id, let platform = object["platform"] as? String,
            ["apns", "fcmv1", "gcm", "wns"].contains(platform), let channel = object["pushChannel"] as? String, !channel.isEmpty
        else {
            state.withLockedValue { $0.violations.append("installation \(id): malformed body") }
            return Response(status: .badRequest)
        }
        let tags = (object["tags"] as? [String]) ?? []
        guard tags.count <= 60, tags.allSatisfy(Tag.isValid) else {
            state.withLockedValue { $0.violations.append("installation \(id): invalid tags") }
            return Response(status: .badRequest)
        }
        state.withLockedValue { $0.installations[id] = Installation(id: id, platform: platform, pushChannel: channel, tags: tags) }
        return Response(status: .ok)
    }

    private static func send(_ request: Request, context: LoopbackContext, state: NIOLockedValueBox<State>) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        if let refusal = refusal(of: request, context: context, state: state) { return refusal }
        func bad(_ reason: String) -> Response {
            state.withLockedValue { $0.violations.append("send: \(reason)") }
            return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: reason)))
        }
        func header(_ name: String) -> String? { request.headers[HTTPField.Name(name)!] }
        guard let format = header("ServiceBusNotification-Format"), ["apple", "fcmv1", "gcm", "windows"].contains(format) else {
            return bad("ServiceBusNotification-Format is missing or unknown")
        }
        guard request.headers[.contentType]?.hasPrefix("application/json") == true,
            (try? JSONSerialization.jsonObject(with: Data(buffer: body))) is [String: Any]
        else { return bad("the body is not JSON") }
        guard body.readableBytes <= 64 * 1024 else { return Response(status: .contentTooLarge) }
        let platform = format == "apple" ? "apns" : format
        let direct = request.uri.query?.split(separator: "&").contains("direct") == true
        var reached: [String] = []
        let tags = header("ServiceBusNotification-Tags")
        let handle = header("ServiceBusNotification-DeviceHandle")
        if direct {
            guard let handle else { return bad("a direct send needs ServiceBusNotification-DeviceHandle") }
            reached = [handle]
        } else {
            guard let tags, let expression = try? TagExpression(parsing: tags) else { return bad("ServiceBusNotification-Tags is not an expression") }
            guard expression.tags.count <= (expression.isPureDisjunction ? 20 : 6) else { return bad("the expression has too many tags") }
            reached = state.withLockedValue { state in
                state.installations.values.filter { $0.platform == platform && expression.matches(Set($0.tags)) }.map(\.id).sorted()
            }
        }
        let send = Send(
            format: format, tags: tags, deviceHandle: handle, pushType: header("apns-push-type"), body: String(buffer: body), reached: reached)
        let status = state.withLockedValue { state -> Int in
            if !state.answers.isEmpty { return state.answers.removeFirst() }
            state.sends.append(send)
            return 201
        }
        var response = Response(status: .init(code: status))
        if status == 201 {
            response.headers[.location] = "https://\(namespace).servicebus.windows.net/\(hub)/messages/\(UUID().uuidString)?api-version=2015-04"
        }
        return response
    }
}
