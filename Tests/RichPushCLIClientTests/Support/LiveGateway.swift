import Foundation
import GatewayTesting
import HummingbirdTesting
import NIOHTTP1
import RichPushCore

@testable import RichPushCLIClient

let adminPassword = Credentials.admin.password

/// A gateway listening on a loopback port, on a fresh SQLite store, for clients that speak real HTTP to it.
enum LiveGateway {
    static func run<T: Sendable>(_ body: @Sendable (_ server: String, _ admin: APIClient) async throws -> T) async throws -> T {
        try await TestGateway().run(.live) { session in
            let server = "http://127.0.0.1:\(session.client.port ?? 0)"
            return try await body(server, APIClient(server: server, username: "admin", password: adminPassword))
        }
    }
}

extension APIClient {
    /// Creates a user as this (admin) client and returns a client signed in as it.
    func createUser(_ username: String, role: Role) async throws -> APIClient {
        let body = #"{"username":"\#(username)","password":"\#(username)-password","role":"\#(role.rawValue)"}"#
        _ = try await call(.POST, "/api/users", body: Data(body.utf8), contentType: "application/json")
        return APIClient(server: server, username: username, password: "\(username)-password")
    }

    /// Registers an installation of this client's user.
    func register(_ id: String, platform: Platform = .direct, tags: [String] = []) async throws {
        let tagList = tags.map { "\"\($0)\"" }.joined(separator: ",")
        // APNs channels are hexadecimal device tokens: the id's bytes in hex.
        let channel = platform == .apns ? id.utf8.map { String(format: "%02x", $0) }.joined() : id
        let body = #"{"platform":"\#(platform.rawValue)","pushChannel":"\#(channel)","tags":[\#(tagList)]}"#
        _ = try await call(.PUT, "/api/installations/\(id)", body: Data(body.utf8), contentType: "application/json")
    }
}

/// What a command wrote, captured instead of a real terminal.
final class CapturedTerminal: @unchecked Sendable {
    private let lock = NSLock()
    private var output = ""
    private var errors = ""
    let isInteractive: Bool

    init(isInteractive: Bool = false) {
        self.isInteractive = isInteractive
    }

    var terminal: Terminal {
        Terminal(
            isInteractive: isInteractive, width: 100,
            write: { text in self.lock.withLock { self.output += text } },
            writeError: { text in self.lock.withLock { self.errors += text } })
    }

    var standardOutput: String { lock.withLock { output } }
    var standardError: String { lock.withLock { errors } }
    var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
}
