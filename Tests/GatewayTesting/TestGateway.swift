public import Foundation
public import Hummingbird
public import HummingbirdTesting
import Logging
public import NIOCore
import NIOFoundationEssentialsCompat
public import RichPushCore
public import RichPushServer
import TestSupport

public func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)"))
}

/// A user's credentials as a test sends them.
public struct Credentials: Sendable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var authorization: String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }

    public static let admin = Credentials(username: "admin", password: "admin-secret-1")
}

/// A gateway on a fresh SQLite store in a temporary directory, with the first admin bootstrapped.
public struct TestGateway: Sendable {
    public var configuration = ServerConfiguration()
    public let directory: URL
    /// The gateway's time, which a test moves forward instead of waiting.
    public let clock: AdvancedWallClock

    public init(clock: AdvancedWallClock = AdvancedWallClock(), _ customize: (inout ServerConfiguration) -> Void = { _ in }) {
        self.clock = clock
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-test-\(UUID().uuidString)")
        configuration.hostname = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory.path
        configuration.publicDirectory = repositoryRoot.appendingPathComponent("Public").path
        configuration.imageDirectory = repositoryRoot.appendingPathComponent("img").path
        configuration.adminPassword = Credentials.admin.password
        configuration.logLevel = .critical
        configuration.heartbeatInterval = .seconds(1)
        configuration.dispatchIdleInterval = .milliseconds(100)
        configuration.bcryptCost = 4
        configuration.clock = clock
        customize(&configuration)
    }

    /// Builds the application, runs `body` against it, and removes the store afterwards.
    public func run<T: Sendable>(_ setup: TestingSetup = .router, _ body: @Sendable (Session) async throws -> T) async throws -> T {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try await buildApplication(configuration)
        let clock = clock
        return try await app.test(setup) { client in try await body(Session(client: client, clock: clock)) }
    }
}

/// One test's conversation with the gateway.
public struct Session: Sendable {
    public let client: any TestClientProtocol
    public let clock: AdvancedWallClock

    @discardableResult
    public func request(
        _ method: HTTPRequest.Method, _ uri: String, as user: Credentials? = nil, json: String? = nil, body: ByteBuffer? = nil,
        headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = headers
        if let user { headers[.authorization] = user.authorization }
        var payload = body
        if let json {
            payload = ByteBuffer(string: json)
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        return try await client.execute(uri: uri, method: method, headers: headers, body: payload)
    }

    /// Creates a user through the API as the admin.
    @discardableResult
    public func createUser(_ username: String, role: Role = .member) async throws -> Credentials {
        let credentials = Credentials(username: username, password: "\(username)-password")
        let response = try await request(
            .post, "/api/users", as: .admin, json: #"{"username":"\#(username)","password":"\#(credentials.password)","role":"\#(role.rawValue)"}"#)
        guard response.status == .created else { throw TestFailure("creating \(username): \(response.status) \(String(buffer: response.body))") }
        return credentials
    }

    /// Registers an installation of `user` and returns its id.
    @discardableResult
    public func register(_ id: String, of user: Credentials, platform: Platform = .direct, tags: [String] = []) async throws -> String {
        let tagList = tags.map { "\"\($0)\"" }.joined(separator: ",")
        let channel = platform == .apns ? apnsToken(of: id) : "\(id)-channel"
        let response = try await request(
            .put, "/api/installations/\(id)", as: user,
            json: #"{"platform":"\#(platform.rawValue)","pushChannel":"\#(channel)","tags":[\#(tagList)]}"#)
        guard response.status == .created || response.status == .ok else {
            throw TestFailure("registering \(id): \(response.status) \(String(buffer: response.body))")
        }
        return id
    }

    /// Uploads a PNG fixture as `user` and returns the image id.
    public func upload(_ name: String = "valid-rgba.png", as user: Credentials) async throws -> Int64 {
        let response = try await request(
            .post, "/api/images", as: user, body: ByteBuffer(data: try fixture(name)), headers: [.contentType: "image/png"])
        return try response.json()["id"] as? Int64 ?? { throw TestFailure("upload: \(response.status) \(String(buffer: response.body))") }()
    }

    /// Creates a notification from `json` as `user` and returns its id.
    public func send(_ json: String, as user: Credentials) async throws -> Int64 {
        let response = try await request(.post, "/api/notifications", as: user, json: json)
        guard response.status == .created, let id = try response.json()["id"] as? Int64 else {
            throw TestFailure("send: \(response.status) \(String(buffer: response.body))")
        }
        return id
    }

    /// Polls the deliveries of notification `id` until the one to `installationId` waits (for a retry, for quiet hours
    /// to end) because of `reason`, or ten seconds pass; answers that delivery as the gateway shows it.
    public func waitUntilPending(of id: Int64, to installationId: String, because reason: String) async throws -> [String: Any] {
        var delivery: [String: Any] = [:]
        _ = try await eventually {
            let items = try await request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()["items"] as? [[String: Any]]
            delivery = items?.first { $0["installationId"] as? String == installationId } ?? [:]
            return delivery["state"] as? String == "pending" && delivery["reason"] as? String == reason
        }
        return delivery
    }

    /// Polls the status until `state` is reached or `timeout` passes.
    public func waitForState(
        _ state: String, of id: Int64, as user: Credentials = .admin, within timeout: Duration = .seconds(30)
    ) async throws -> [String: Any] {
        var status: [String: Any] = [:]
        _ = try await eventually(within: timeout) {
            status = try await request(.get, "/api/notifications/\(id)/status", as: user).json()
            return status["state"] as? String == state
        }
        return status
    }
}

/// The APNs device token `Session.register` gives installation `id`: its bytes in hex, distinct per device.
public func apnsToken(of id: String) -> String {
    id.utf8.map { String(format: "%02x", $0) }.joined()
}

extension TestResponse {
    /// The body as a JSON object; numbers are NSNumbers, readable `as? Int64`.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(String(buffer: body))")
        }
        return object
    }

    /// The `error` object of an error response, read as the clients read it.
    public func error() throws -> (status: Int, code: String, message: String) {
        guard let error = try? JSONDecoder().decode(ErrorJSON.self, from: Data(buffer: body)).error else {
            throw TestFailure("not an error body: \(String(buffer: body))")
        }
        return (error.status, error.code, error.message)
    }

    public var text: String { String(buffer: body) }
}
