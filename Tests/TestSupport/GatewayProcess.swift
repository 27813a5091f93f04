public import Foundation

/// The real `richpush serve`, run as a separate process on its own store in a temporary directory, restartable on the
/// same port and data: the one launcher of the server's, the command line's and the daemon's process tests.
public final class GatewayProcess: @unchecked Sendable {
    public let dataDirectory: URL
    public let port: Int
    /// Flags added to `richpush serve`, such as a hub's settings or a certificate.
    public let extraArguments: [String]
    /// With a CA file the gateway is asked over HTTPS, trusting that CA; its flags must give it a certificate.
    public let caFile: String?
    public let adminPassword: String
    public private(set) var process: SpawnedProcess?
    private let logFile: URL
    private let logDirectory: URL

    /// The `richpush` binary next to the test bundle; `swift build --build-tests` builds both.
    public static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("richpush")
    }

    /// With `dataDirectory` the store is kept there (a disk the test fills, say), the log apart from it.
    public init(adminPassword: String, extraArguments: [String] = [], caFile: String? = nil, dataDirectory: URL? = nil) throws {
        self.adminPassword = adminPassword
        self.extraArguments = extraArguments
        self.caFile = caFile
        let own = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        self.dataDirectory = dataDirectory ?? own
        logDirectory = own
        logFile = own.appendingPathComponent("gateway.log")
        port = try freePort()
    }

    deinit { cleanUp() }

    public var baseURL: String { "\(caFile == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// What the gateway has logged, across its restarts.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Starts `richpush serve` and waits until it says it listens and `/health` answers. A restart's port may have
    /// been taken by another test's gateway while this one was down: then this one never says it listens (it exits),
    /// rather than the other answering its health check and its requests.
    public func start() async throws {
        let listenedBefore = log.components(separatedBy: Self.listening).count
        let arguments =
            [
                "serve", "--hostname", "127.0.0.1", "--port", String(port), "--data-dir", dataDirectory.path,
                "--public-dir", repositoryRoot.appendingPathComponent("Public").path, "--image-dir",
                repositoryRoot.appendingPathComponent("img").path, "--heartbeat-interval", "1", "--log-level", "info",
            ] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["RICHPUSH_ADMIN_PASSWORD"] = adminPassword
        let process = try SpawnedProcess(Self.executable.path, arguments, environment: environment, output: .file(logFile.path))
        self.process = process
        // The whole suite starts dozens of gateways at once on two cores: one was seen to need 34 s to answer.
        let ready = try await eventually(within: .seconds(90)) {
            guard process.isRunning else { return true }
            return log.components(separatedBy: Self.listening).count > listenedBefore ? try await isHealthy() : false
        }
        guard ready, process.isRunning else {
            throw TestFailure(process.isRunning ? "richpush did not become healthy: \(log)" : "richpush exited: \(log)")
        }
    }

    /// What the gateway logs once its port is bound.
    static let listening = "richpush listening"

    /// Whether `/health` answers 200, asked with curl so any test target can launch a gateway. Each try has its own
    /// deadline: on a loaded machine one connection can stall while the next succeeds.
    private func isHealthy() async throws -> Bool {
        let trust = caFile.map { ["--cacert", $0] } ?? []
        return try await SpawnedProcess.run("/usr/bin/curl", ["-sf", "-o", "/dev/null", "--max-time", "2"] + trust + [baseURL + "/health"]).status
            == 0
    }

    /// Sends `signal` and waits up to `timeout` for the exit; returns the exit status and the time it took, or nil
    /// when the process had to be killed.
    @discardableResult
    public func terminate(_ signal: Int32 = SIGTERM, within timeout: Duration = .seconds(10)) async -> (status: Int32, elapsed: Duration)? {
        guard let process else { return nil }
        defer { self.process = nil }
        return await process.terminate(signal, within: timeout)
    }

    /// Ends the process the hard way, as a crash or an OOM kill would.
    public func kill() {
        process?.reapKilled()
        process = nil
    }

    /// Freezes and thaws the process: connections stay open but nothing, not even a heartbeat, comes through.
    public func pause() { process?.signal(SIGSTOP) }
    public func resume() { process?.signal(SIGCONT) }

    /// Kills the process and removes its store.
    public func cleanUp() {
        kill()
        try? FileManager.default.removeItem(at: dataDirectory)
        try? FileManager.default.removeItem(at: logDirectory)
    }
}
