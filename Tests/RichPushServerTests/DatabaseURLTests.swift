import Foundation
import GatewayTesting
import NIOHTTP1
import TestPostgres
import TestSupport
import Testing

/// `--database-url` as an operator gives it: the real executable, a real PostgreSQL server.
@Suite("Choosing PostgreSQL on the command line", .serialized)
struct DatabaseURLTests {
    func richpush(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, output: String) {
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RICHPUSH_") }
        guard let input else { return try await SpawnedProcess.run(GatewayProcess.executable.path, arguments, environment: environment) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-input-\(UUID().uuidString)")
        try input.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let command = "exec \"$0\" \"$@\" < \"\(file.path)\""
        return try await SpawnedProcess.run("/bin/sh", ["-c", command, GatewayProcess.executable.path] + arguments, environment: environment)
    }

    @Test func aServerThatCannotBeReachedStopsServeWithASentenceNamingIt() async throws {
        let result = try await richpush(["serve", "--port", "0", "--database-url", "postgres://richpush:secret@127.0.0.1:1/richpush?sslmode=disable"])
        #expect(result.status != 0)
        #expect(result.output.contains("cannot connect to PostgreSQL at 127.0.0.1:1/richpush"), "\(result.output)")
        #expect(!result.output.contains("secret"), "the password was printed")
    }

    @Test func aURLOfAnotherDatabaseIsRefused() async throws {
        let result = try await richpush(["serve", "--port", "0", "--database-url", "mysql://root@127.0.0.1/richpush"])
        #expect(result.status != 0)
        #expect(result.output.contains("must start with postgres://"), "\(result.output)")
    }

    @Test func aUserAddedWithTheDatabaseURLSignsInToServeOnTheSameDatabase() async throws {
        let url = try await TestPostgres.createDatabase()
        defer { TestPostgres.dropDatabase(url) }
        let added = try await richpush(
            ["user", "add", "alice", "--role", "member", "--password-stdin", "--database-url", url], input: "alice-password\n")
        #expect(added.status == 0, "\(added.output)")
        let gateway = try GatewayProcess(extraArguments: ["--database-url", url])
        defer { gateway.cleanUp() }
        try await gateway.start()
        let me = try await gateway.request(.GET, "/api/users/me", as: Credentials(username: "alice", password: "alice-password"))
        #expect(me.status == 200)
        #expect(me.body.contains(#""role":"member""#))
    }
}
