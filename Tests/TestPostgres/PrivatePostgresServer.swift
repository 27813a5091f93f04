public import Foundation
import TestSupport

/// A PostgreSQL server of one test's own, which it may stop and start again on the same port and data: the
/// database going away under a gateway. The suite's shared server (``TestPostgres``) must never stop, so a test of
/// that fault starts one of these from the binaries `scripts/with-postgres` uses.
public final class PrivatePostgresServer: Sendable {
    public let port: Int
    private let directory: URL
    private let binaries: URL
    /// `runuser -u postgres --` when the tests run as root, whom `initdb` refuses.
    private let asOwner: [String]

    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable" }

    private var data: String { directory.appendingPathComponent("data").path }

    private init(port: Int, directory: URL, binaries: URL, asOwner: [String]) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.asOwner = asOwner
    }

    /// Creates a cluster in a temporary directory and starts it on a free port.
    public static func start() async throws -> PrivatePostgresServer {
        let versions = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")
        guard let newest = versions.compactMap(Int.init).max() else {
            throw TestFailure("no PostgreSQL server under /usr/lib/postgresql: run the tests with scripts/test")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-private-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let asOwner = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        if getuid() == 0 { try await run("/bin/chown", ["postgres:", directory.path]) }
        let server = PrivatePostgresServer(
            port: try freePort(), directory: directory, binaries: URL(fileURLWithPath: "/usr/lib/postgresql/\(newest)/bin"), asOwner: asOwner)
        try await server.owned(
            "initdb", ["-D", server.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        try await server.startAgain()
        return server
    }

    /// Starts the stopped server on its port and data, and returns once it accepts connections.
    public func startAgain() async throws {
        let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
        try await owned("pg_ctl", ["-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "-o", options, "start"])
    }

    /// Stops the server as an operator's `pg_ctl stop` does: every session ends with `admin_shutdown`, and new
    /// connections are refused until it starts again.
    public func stop() async throws {
        try await owned("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
    }

    /// Stops the server at once and removes its files.
    public func remove() async {
        try? await owned("pg_ctl", ["-D", data, "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    private func owned(_ program: String, _ arguments: [String]) async throws {
        let path = binaries.appendingPathComponent(program).path
        if asOwner.isEmpty {
            try await Self.run(path, arguments)
        } else {
            try await Self.run(asOwner[0], Array(asOwner.dropFirst()) + [path] + arguments)
        }
    }

    private static func run(_ executable: String, _ arguments: [String]) async throws {
        let result = try await SpawnedProcess.run(executable, arguments)
        guard result.status == 0 else { throw TestFailure("\(executable) \(arguments.joined(separator: " ")) failed: \(result.output)") }
    }
}
