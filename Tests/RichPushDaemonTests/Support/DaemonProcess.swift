import Foundation
import TestSupport

/// The real `richpushd` executable, run as the user would, with its own home, state and cache directories.
final class DaemonProcess: @unchecked Sendable {
    let home: TemporaryDirectory
    let gateway: SpawnedGateway
    let user: (String, String)
    private(set) var process: ChildProcess?
    private var runs = 0

    init(gateway: SpawnedGateway, user: (String, String)) throws {
        home = try TemporaryDirectory()
        self.gateway = gateway
        self.user = user
        _ = try home.write("password", user.1 + "\n")
        _ = try home.write("open", "#!/bin/sh\nprintf '%s\\n' \"$1\" >> \"\(home.path)/opened\"\n", mode: 0o755)
    }

    deinit { process?.stop() }

    var arguments: [String] {
        [
            "--server", gateway.baseURL, "--user", user.0, "--password-file", home.path + "/password", "--heartbeat-timeout", "3",
            "--open-command", home.path + "/open", "--verbose",
        ] + (gateway.caFile.map { ["--ca-file", $0] } ?? [])
    }

    /// The environment: a fresh home, plus the desktop's bus when there is one.
    func environment(desktop: TestDesktop?) -> [String: String] {
        var environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        if let desktop { environment.merge(desktop.environment.filter { $0.key != "HOME" }) { $1 } }
        return environment
    }

    /// Starts the daemon and waits until its stream is connected.
    func start(desktop: TestDesktop?, extraArguments: [String] = []) async throws {
        runs += 1
        let process = try ChildProcess(
            productsDirectory + "/richpushd", arguments + extraArguments, environment: environment(desktop: desktop),
            outputFile: home.path + "/stdout-\(runs)", errorFile: home.path + "/stderr-\(runs)")
        self.process = process
        try await waitForLog("stream connected")
    }

    /// Runs `richpushd --once` to its end.
    func runOnce(desktop: TestDesktop? = nil) async throws -> (status: Int32, output: String, log: String) {
        runs += 1
        let process = try ChildProcess(
            productsDirectory + "/richpushd", arguments + ["--once"], environment: environment(desktop: desktop),
            outputFile: home.path + "/stdout-\(runs)", errorFile: home.path + "/stderr-\(runs)")
        let status = await process.process.exitStatus()
        return (status, process.output, Self.read(home.path + "/stderr-\(runs)"))
    }

    /// What the daemon logged (standard error) in its current run.
    var log: String { Self.read(home.path + "/stderr-\(runs)") }
    /// What it printed (console alerts) in its current run.
    var output: String { process?.output ?? "" }
    /// The notification ids of the console alerts printed so far.
    var printed: [Int64] {
        output.split(separator: "\n").compactMap { line in
            line.hasPrefix("richpush ") ? line.split(separator: " ").dropFirst().first.flatMap { Int64($0) } : nil
        }
    }
    /// Every file or URL the daemon asked the desktop to open.
    var opened: [String] { Self.read(home.path + "/opened").split(separator: "\n").map(String.init) }

    /// The notifications the current run showed, in order.
    var shown: [Int64] {
        log.split(separator: "\n").filter { $0.contains("alert shown") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("id=") }.flatMap { Int64($0.dropFirst(3)) }
        }
    }

    @discardableResult
    func waitForLog(_ text: String, timeout: Duration = .seconds(15)) async throws -> String {
        let found = await eventually(within: timeout) { self.log.contains(text) }
        guard found else { throw TestFailure("the daemon did not log '\(text)':\n\(log)\n--- gateway ---\n\(gateway.log)") }
        return log
    }

    func waitUntilShown(_ ids: [Int64], timeout: Duration = .seconds(15)) async throws {
        let done = await eventually(within: timeout) { Set(self.shown).isSuperset(of: ids) }
        guard done else { throw TestFailure("shown \(shown), expected \(ids):\n\(log)") }
    }

    func stop() {
        process?.stop()
    }

    func terminate(within timeout: Duration) async -> (status: Int32, elapsed: Duration)? {
        await process?.terminate(SIGTERM, within: timeout)
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
