import Foundation
import TestSupport
import Testing

/// The web console driven by headless Chromium (Tests/console/console_test.py) against the real `richpush` process.
/// Screenshots of each screen land in `.test-output/console/`. Run it with `RICHPUSH_BROWSER_TESTS=1 swift test
/// --filter ConsoleBrowserTests`.
@Suite(
    "The web console in a real browser", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["RICHPUSH_BROWSER_TESTS"] == "1",
        "scripts/test runs the browser on its own, after the other tests, so neither slows the other's timing")
)
struct ConsoleBrowserTests {
    static let output = repositoryRoot.appendingPathComponent(".test-output/console")

    @Test func signInComposeSendWatchRecallAndEveryErrorWorkInChromium() async throws {
        // The webhooks screen's test posts to a loopback port, which the outbound rules refuse otherwise.
        let gateway = try GatewayProcess(extraArguments: ["--allow-private-push-endpoints"])
        defer { gateway.cleanUp() }
        try await gateway.start()
        var environment = gateway.scriptEnvironment
        environment["OUTPUT"] = Self.output.path
        let script = repositoryRoot.appendingPathComponent("Tests/console/console_test.py").path
        // A browser that hangs must fail the run, not stall it.
        let result = try await SpawnedProcess.run("/usr/bin/env", ["timeout", "300", "python3", script], environment: environment)
        #expect(result.status == 0, "\(result.output)\n--- gateway log ---\n\(gateway.log)")
        #expect(FileManager.default.fileExists(atPath: Self.output.appendingPathComponent("campaigns.png").path))
    }

    @Test func aPageOfAnAllowedOriginCallsTheAPIAndAnotherOriginIsRefused() async throws {
        let pagePort = try freePort()
        let gateway = try GatewayProcess(extraArguments: ["--cors-origins", "http://127.0.0.1:\(pagePort)"])
        defer { gateway.cleanUp() }
        try await gateway.start()
        var environment = gateway.scriptEnvironment
        environment["PAGE_PORT"] = String(pagePort)
        let script = repositoryRoot.appendingPathComponent("Tests/console/cors_test.py").path
        let result = try await SpawnedProcess.run("/usr/bin/env", ["timeout", "120", "python3", script], environment: environment)
        #expect(result.status == 0, "\(result.output)\n--- gateway log ---\n\(gateway.log)")
    }
}
