import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOHTTP1
import RichPushCore
import TestSupport

@testable import RichPushCLIClient
@testable import RichPushServer

func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)"))
}

let adminPassword = "admin-secret-1"

/// A gateway listening on a loopback port, on a fresh SQLite store, for clients that speak real HTTP to it.
enum LiveGateway {
    static func run<T: Sendable>(_ body: @Sendable (_ server: String, _ admin: APIClient) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.hostname = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory.path
        configuration.publicDirectory = repositoryRoot.appendingPathComponent("Public").path
        configuration.imageDirectory = repositoryRoot.appendingPathComponent("img").path
        configuration.adminPassword = adminPassword
        configuration.logLevel = .critical
        configuration.dispatchIdleInterval = .milliseconds(100)
        configuration.bcryptCost = 4
        let app = try await buildApplication(configuration)
        return try await app.test(.live) { client in
            let server = "http://127.0.0.1:\(client.port ?? 0)"
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
