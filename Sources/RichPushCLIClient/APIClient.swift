public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
public import RichPushCore

/// Talks HTTP to a richpush gateway as one user, with Basic auth or an API token.
///
/// ```swift
/// let client = APIClient(server: "http://localhost:8080", username: "mark", password: secret)
/// let image = try await client.uploadImage(try Data(contentsOf: logo))
/// let notification = try await client.createNotification(.init(message: "Sale!", richType: .img, imageId: image.id, audience: "topic:sale"))
/// ```
public struct APIClient: Sendable {
    /// The gateway's base URL without a trailing slash, e.g. `http://localhost:8080` or `https://push.example.com/richpush`.
    public let server: String
    let authorization: String
    let httpClient: HTTPClient
    let timeout: TimeAmount

    public init(server: String, username: String, password: String, httpClient: HTTPClient = .shared, timeout: Duration = .seconds(60)) {
        self.init(server: server, credential: .password(username: username, password: password), httpClient: httpClient, timeout: timeout)
    }

    public init(server: String, credential: Credential, httpClient: HTTPClient = .shared, timeout: Duration = .seconds(60)) {
        var server = server
        while server.hasSuffix("/") { server.removeLast() }
        self.server = server
        self.authorization = credential.authorization
        self.httpClient = httpClient
        self.timeout = .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
    }

    /// Uploads PNG bytes; the same bytes again return the image stored before.
    /// Uploads a PNG, JPEG or WebP image; the gateway tells the format from the bytes.
    public func uploadImage(_ image: Data) async throws(ClientError) -> ImageJSON {
        try decode(ImageJSON.self, from: try await call(.POST, "/api/images", body: image, contentType: "application/octet-stream"))
    }

    public func createNotification(_ notification: NewNotificationJSON) async throws(ClientError) -> NotificationJSON {
        let body: Data
        do {
            body = try JSONEncoder().encode(notification)
        } catch {
            throw .unexpectedAnswer("The notification could not be encoded: \(error).")
        }
        return try decode(NotificationJSON.self, from: try await call(.POST, "/api/notifications", body: body, contentType: "application/json"))
    }

    /// `GET /api/notifications/{id}/info`: the notification as the gateway stored it.
    public func notification(_ id: Int64) async throws(ClientError) -> NotificationJSON {
        try decode(NotificationJSON.self, from: try await call(.GET, "/api/notifications/\(id)/info"))
    }

    /// `POST /api/activities`, `PATCH` or `DELETE /api/activities/{id}`, as `plan` says.
    public func activity(_ plan: ActivityPlan) async throws(ClientError) -> ActivityJSON {
        let answer: Data
        switch plan.step {
        case .start: answer = try await call(.POST, "/api/activities", body: plan.body, contentType: "application/json")
        case .update(let id): answer = try await call(.PATCH, "/api/activities/\(id)", body: plan.body, contentType: "application/json")
        case .end(let id):
            let query = plan.dismissAt.map { "?dismissAt=\(Timestamp.format($0))" } ?? ""
            answer = try await call(.DELETE, "/api/activities/\(id)\(query)")
        }
        return try decode(ActivityJSON.self, from: answer)
    }

    public func status(id: Int64) async throws(ClientError) -> StatusJSON {
        try decode(StatusJSON.self, from: try await call(.GET, "/api/notifications/\(id)/status"))
    }

    /// `GET /api/notifications/{id}/deliveries` as CSV, handed to `write` piece by piece as it arrives, so an export
    /// of any size passes through without being held.
    public func exportDeliveries(id: Int64, write: ([UInt8]) -> Void) async throws(ClientError) {
        let response = try await send(.GET, "/api/notifications/\(id)/deliveries?format=csv", accept: "text/csv")
        guard (200..<300).contains(response.status.code) else { throw Self.refusal(status: response.status, body: try await collect(response)) }
        do {
            for try await piece in response.body { write(Array(piece.readableBytesView)) }
        } catch {
            throw .unreachable(server: server, reason: Self.describe(error))
        }
    }

    /// Sends one request; a 2xx answer returns its body, anything else becomes a ``ClientError``.
    func call(_ method: HTTPMethod, _ path: String, body: Data? = nil, contentType: String? = nil) async throws(ClientError) -> Data {
        let response = try await send(method, path, body: body, contentType: contentType)
        let answer = try await collect(response)
        guard (200..<300).contains(response.status.code) else { throw Self.refusal(status: response.status, body: answer) }
        return answer
    }

    /// Sends one request and returns the answer's head, its body still to be read.
    private func send(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, contentType: String? = nil, accept: String = "application/json"
    ) async throws(ClientError) -> HTTPClientResponse {
        var request = HTTPClientRequest(url: server + path)
        request.method = method
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Accept", value: accept)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        }
        do {
            return try await httpClient.execute(request, timeout: timeout)
        } catch {
            throw .unreachable(server: server, reason: Self.describe(error))
        }
    }

    private func collect(_ response: HTTPClientResponse) async throws(ClientError) -> Data {
        do {
            return Data(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
        } catch {
            throw .unreachable(server: server, reason: Self.describe(error))
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ClientError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .unexpectedAnswer("The gateway at \(server) answered with something other than the richpush API.")
        }
    }

    /// The API's error body, or a sentence about what answered instead (a proxy's HTML page, say).
    static func refusal(status: HTTPResponseStatus, body: Data) -> ClientError {
        if let error = try? JSONDecoder().decode(ErrorJSON.self, from: body).error {
            return .refused(status: error.status, code: error.code, message: error.message)
        }
        return .refused(
            status: Int(status.code), code: "http.\(status.code)", message: "The server answered \(status.code) \(status.reasonPhrase).")
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .deadlineExceeded, .readTimeout: return "no answer in time"
            default: return error.shortDescription
            }
        }
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

extension Data {
    init(buffer: ByteBuffer) {
        self = Data(buffer.readableBytesView)
    }
}
