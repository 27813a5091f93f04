import RichPushCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The gateway's REST API as a device uses it: registration, payloads, state and receipts.
final class GatewayClient {
    let server: String
    let easy: CurlEasy
    /// The longest any one call may take.
    var timeout = Duration.seconds(15)

    init(server: String, credential: GatewayCredential, caFile: String?) {
        self.server = server
        self.easy = CurlEasy(credential: credential, caFile: caFile)
    }

    /// `PUT /api/installations/{id}` as a `direct` installation whose push channel is its own id.
    func register(installationId: String, tags: [String]) throws(GatewayError) {
        struct Registration: Encodable {
            var platform = "direct"
            var pushChannel: String
            var tags: [String]
            var applicationName = "richpushd"
            var appVersion = "1"
        }
        let body = Self.json(Registration(pushChannel: installationId, tags: tags))
        let response = try send(.json(.put, server + "/api/installations/" + installationId, body))
        guard response.status == 200 || response.status == 201 else { throw GatewayError(response) }
    }

    /// `GET /api/notifications/{id}`: the payload itself, fetched as `installationId` when given, so the gateway
    /// counts the fetch as this device's. A redirect (a `url` payload) is not followed.
    func payload(richId: Int64, installationId: String?, limit: Int) throws(GatewayError) -> GatewayResponse {
        let device = installationId.map { "?installationId=" + $0 } ?? ""
        var request = GatewayRequest(method: .get, url: server + "/api/notifications/\(richId)" + device)
        request.maximumBodyBytes = limit
        return try send(request)
    }

    /// `PATCH /api/me/notifications/{id}`: the user's state, which the gateway passes to the user's other devices.
    func updateState(richId: Int64, readState: ReadState?, userActionState: UserActionState?, action: String? = nil) throws(GatewayError) {
        struct Update: Encodable {
            var readState: ReadState?
            var userActionState: UserActionState?
            var action: String?
        }
        let body = Self.json(Update(readState: readState, userActionState: userActionState, action: action))
        let response = try send(.json(.patch, server + "/api/me/notifications/\(richId)", body))
        guard response.status == 200 else { throw GatewayError(response) }
    }

    /// `POST /api/me/notifications/{id}/actions/{action}`: the gateway makes the `http` action's request for this device.
    /// Installation ids and action ids are of characters a query and a path take as they are.
    func runAction(richId: Int64, action: String, installationId: String) throws(GatewayError) {
        let path = "/api/me/notifications/\(richId)/actions/\(action)?installationId=\(installationId)"
        let response = try send(.json(.post, server + path, "{}"))
        guard response.status == 202 else { throw GatewayError(response) }
    }

    /// `POST /api/me/notifications/{id}/receipts`: this device showed the notification.
    func postReceipt(richId: Int64, installationId: String, event: ReceiptEvent) throws(GatewayError) {
        struct Receipt: Encodable {
            var installationId: String
            var event: ReceiptEvent
        }
        let body = Self.json(Receipt(installationId: installationId, event: event))
        let response = try send(.json(.post, server + "/api/me/notifications/\(richId)/receipts", body))
        guard response.status == 200 || response.status == 201 else { throw GatewayError(response) }
    }

    private func send(_ request: GatewayRequest) throws(GatewayError) -> GatewayResponse {
        var request = request
        request.timeout = timeout
        do {
            return try easy.send(request)
        } catch {
            throw .network(error.message)
        }
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

/// Why a call to the gateway did not succeed.
enum GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer: the gateway is unreachable, the connection broke or timed out.
    case network(String)
    /// An answer other than success, with the gateway's error code and sentence when it sent them.
    case status(Int, code: String?, message: String?)

    init(_ response: GatewayResponse) {
        let envelope = try? JSONDecoder().decode(ErrorJSON.self, from: Data(response.body))
        self = .status(response.status, code: envelope?.error.code, message: envelope?.error.message)
    }

    var status: Int? {
        guard case .status(let status, _, _) = self else { return nil }
        return status
    }

    /// Worth another try later: the network, a gateway in trouble, or throttling.
    var isTransient: Bool {
        switch self {
        case .network: true
        case .status(let status, _, _): status == 429 || status >= 500
        }
    }

    var description: String {
        switch self {
        case .network(let message): "the gateway is unreachable: \(message)"
        case .status(let status, let code, let message):
            "the gateway answered \(status)" + (code.map { " \($0)" } ?? "") + (message.map { ": \($0)" } ?? "")
        }
    }
}
