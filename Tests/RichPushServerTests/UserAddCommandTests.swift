import Foundation
import GatewayTesting
import NIOHTTP1
import TestSupport
import Testing

/// `richpush user add` on the embedded store, configured from the environment as a container would.
@Suite("Adding a user from the command line")
struct UserAddCommandTests {
    @Test func theRoleAndPasswordOnStandardInputComeFromTheEnvironmentAndTheUserSignsIn() async throws {
        let gateway = try GatewayProcess()
        defer { gateway.cleanUp() }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RICHPUSH_") }
        environment["RICHPUSH_ROLE"] = "marketer"
        environment["RICHPUSH_PASSWORD_STDIN"] = "1"
        environment["RICHPUSH_DATA_DIR"] = gateway.dataDirectory.path
        let input = gateway.dataDirectory.appendingPathComponent("password")
        try "mark-password\n".write(to: input, atomically: true, encoding: .utf8)
        let added = try await SpawnedProcess.run(
            "/bin/sh", ["-c", "exec \"$0\" user add mark < \"\(input.path)\"", GatewayProcess.executable.path], environment: environment)
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains("created user mark with role marketer"))
        try await gateway.start()
        let me = try await gateway.request(.GET, "/api/users/me", as: Credentials(username: "mark", password: "mark-password"))
        #expect(me.status == 200)
        #expect(me.body.contains(#""role":"marketer""#))
    }

    @Test func aMissingRoleIsNamedWithItsEnvironmentForm() async throws {
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RICHPUSH_") }
        let result = try await SpawnedProcess.run(
            GatewayProcess.executable.path, ["user", "add", "mark", "--password-stdin"], environment: environment)
        #expect(result.status != 0)
        #expect(result.output.contains("--role is required (or RICHPUSH_ROLE, or 'role = …' in the config file)"), "\(result.output)")
    }
}
