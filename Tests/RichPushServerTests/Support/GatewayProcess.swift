import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TestSupport

/// The real `richpush` executable, run as a separate process on a store in a temporary directory.
final class GatewayProcess: @unchecked Sendable {
    let dataDirectory: URL
    let port: Int
    /// Flags added to `richpush serve`, such as a hub's settings.
    let extraArguments: [String]
    private(set) var process: SpawnedProcess?
    private let logFile: URL
    /// With a CA file the gateway is asked over HTTPS, trusting that CA; its flags must give it a certificate.
    let caFile: String?
    private let client: HTTPClient

    /// The `richpush` binary next to the test bundle; `swift build --build-tests` builds both.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("richpush")
    }

    init(extraArguments: [String] = [], caFile: String? = nil) throws {
        self.extraArguments = extraArguments
        self.caFile = caFile
        if let caFile {
            var configuration = HTTPClient.Configuration()
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
            client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        } else {
            client = .shared
        }
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        logFile = dataDirectory.appendingPathComponent("gateway.log")
        port = try freePort()
    }

    var baseURL: String { "\(caFile == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// This process's environment plus what the QA scripts read: the gateway's address, the admin's password, the
    /// PNG fixtures and the logo.
    var scriptEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["BASE"] = baseURL
        environment["ADMIN_PASSWORD"] = Credentials.admin.password
        environment["FIXTURES"] = repositoryRoot.appendingPathComponent("Tests/Fixtures").path
        environment["LOGO"] = repositoryRoot.appendingPathComponent("img/logo.png").path
        return environment
    }

    /// Starts `richpush serve` and waits until `/health` answers.
    func start() async throws {
        let arguments =
            [
                "serve", "--hostname", "127.0.0.1", "--port", String(port), "--data-dir", dataDirectory.path,
                "--public-dir", repositoryRoot.appendingPathComponent("Public").path, "--image-dir",
                repositoryRoot.appendingPathComponent("img").path,
                "--heartbeat-seconds", "1", "--log-level", "info",
            ] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["RICHPUSH_ADMIN_PASSWORD"] = Credentials.admin.password
        let process = try SpawnedProcess(Self.executable.path, arguments, environment: environment, output: .file(logFile.path))
        self.process = process
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            // Each try has its own deadline: on a loaded machine one connection can stall while the next succeeds.
            if let response = try? await client.execute(HTTPClientRequest(url: baseURL + "/health"), timeout: .seconds(2)),
                response.status == .ok
            {
                return
            }
            guard process.isRunning else { throw TestFailure("richpush exited: \(log)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("richpush did not become healthy: \(self.log)")
    }

    /// Ends the process the hard way, as a crash or an OOM kill would.
    func kill() {
        guard let process else { return }
        process.signal(SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Sends SIGTERM and returns the exit status and how long the process took to end.
    func terminate(within timeout: Duration) async throws -> (status: Int32, elapsed: Duration) {
        guard let process else { throw TestFailure("not running") }
        let start = ContinuousClock.now
        process.signal(SIGTERM)
        while process.isRunning {
            if ContinuousClock.now - start > timeout {
                kill()
                throw TestFailure("richpush did not exit within \(timeout) of SIGTERM")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        self.process = nil
        return (process.waitUntilExit(), ContinuousClock.now - start)
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Sends one request and returns status and body.
    func request(_ method: HTTPMethod, _ path: String, as user: Credentials?, json: String? = nil) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let user { request.headers.add(name: "Authorization", value: user.authorization) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return (Int(response.status.code), String(buffer: body))
    }

    func cleanUp() {
        kill()
        if caFile != nil { try? client.syncShutdown() }
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
