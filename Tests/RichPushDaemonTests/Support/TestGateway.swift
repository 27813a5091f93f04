import Foundation
import TestSupport

@testable import RichPushDaemon

/// The real `richpush` gateway as a separate process, on a fresh store; restartable on the same port and data.
final class TestGateway: @unchecked Sendable {
    let directory: TemporaryDirectory
    let port: Int
    private(set) var process: ChildProcess?
    static let adminPassword = "admin-secret-1"
    private var imageIds: [String: Int64] = [:]

    /// The CA whose certificate the gateway serves HTTPS with; nil: plain HTTP.
    let caFile: String?

    /// A gateway on plain HTTP, or with `https` on HTTPS with a certificate for 127.0.0.1 that openssl issues to it
    /// here, trusted through ``caFile`` only.
    init(https: Bool = false) throws {
        directory = try TemporaryDirectory()
        port = try freePort()
        guard https else {
            caFile = nil
            return
        }
        let certificate = directory.path + "/gateway.pem"
        let issued = try SpawnedProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory.path + "/gateway-key.pem", "-out", certificate,
            ])
        guard issued.status == 0 else { throw TestFailure("openssl could not issue the certificate: \(issued.output)") }
        caFile = certificate
    }

    deinit { process?.stop() }

    var baseURL: String { "\(caFile == nil ? "http" : "https")://127.0.0.1:\(port)" }
    var log: String { process?.output ?? "" }

    func start() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["RICHPUSH_ADMIN_PASSWORD"] = Self.adminPassword
        let process = try ChildProcess(
            productsDirectory + "/richpush",
            [
                "serve", "--hostname", "127.0.0.1", "--port", String(port), "--data-dir", directory.path + "/data",
                "--public-dir", repositoryRoot.appendingPathComponent("Public").path, "--image-dir",
                repositoryRoot.appendingPathComponent("img").path, "--heartbeat-seconds", "1",
            ] + (caFile.map { ["--tls-cert-file", $0, "--tls-key-file", directory.path + "/gateway-key.pem"] } ?? []), environment: environment,
            outputFile: directory.path + "/gateway-\(UUID().uuidString).log")
        self.process = process
        let healthy = await eventually(within: .seconds(30)) {
            guard process.isRunning else { return true }
            return (try? request(.get, "/health", as: nil).status) == 200
        }
        guard healthy, process.isRunning else { throw TestFailure("the gateway did not start:\n\(process.output)") }
    }

    /// Stops the gateway (SIGTERM: streams end cleanly; SIGKILL: a crash).
    func stop(_ signal: Int32 = SIGTERM) {
        process?.terminate(signal)
        process = nil
    }

    /// Freezes and thaws the process: connections stay open but nothing, not even a heartbeat, comes through.
    func pause() { kill(process!.pid, SIGSTOP) }
    func resume() { kill(process!.pid, SIGCONT) }

    func request(_ method: GatewayRequest.Method, _ path: String, as user: (String, String)?, json: String? = nil) throws -> (
        status: Int, body: String
    ) {
        let easy = CurlEasy(credential: .password(username: user?.0 ?? "", password: user?.1 ?? ""), caFile: caFile)
        var request = json.map { GatewayRequest.json(method, baseURL + path, $0) } ?? GatewayRequest(method: method, url: baseURL + path)
        if user == nil { request.headers.append("Authorization:") }
        let response = try easy.send(request)
        return (response.status, response.text)
    }

    static let admin = ("admin", adminPassword)

    /// Creates a member; returns its credentials.
    func createMember(_ name: String) throws -> (String, String) {
        let password = name + "-password"
        let response = try request(.post, "/api/users", as: Self.admin, json: #"{"username":"\#(name)","password":"\#(password)","role":"member"}"#)
        guard response.status == 201 else { throw TestFailure("cannot create \(name): \(response)") }
        return (name, password)
    }

    /// Sends an image notification to `username`; returns its id.
    func sendImage(_ fixtureName: String = "two-colors.png", message: String, to username: String) throws -> Int64 {
        let imageId = try imageId(fixtureName)
        return try send(#"{"message":"\#(message)","richType":"img","imageId":\#(imageId),"audience":"username:\#(username)"}"#)
    }

    func sendText(_ text: String, message: String, to username: String) throws -> Int64 {
        try send(#"{"message":"\#(message)","richType":"text","text":"\#(text)","audience":"username:\#(username)"}"#)
    }

    func send(_ json: String) throws -> Int64 {
        let response = try request(.post, "/api/notifications", as: Self.admin, json: json)
        guard response.status == 201, let id = Self.object(response.body)?["id"] as? Int64 else {
            throw TestFailure("the notification was not accepted: \(response)")
        }
        return id
    }

    /// A user's feed item for notification `id`.
    func feedItem(_ id: Int64, of user: (String, String)) throws -> [String: Any]? {
        let response = try request(.get, "/api/me/notifications?since=0&limit=200", as: user)
        let items = Self.object(response.body)?["items"] as? [[String: Any]] ?? []
        return items.first { ($0["id"] as? Int64) == id }
    }

    func status(_ id: Int64) throws -> [String: Any] {
        Self.object(try request(.get, "/api/notifications/\(id)/status", as: Self.admin).body) ?? [:]
    }

    /// Uploads a fixture image (PNG, JPEG or WebP) once and returns its id.
    func upload(_ fixtureName: String) throws -> Int64 {
        try imageId(fixtureName)
    }

    private func imageId(_ fixtureName: String) throws -> Int64 {
        if let id = imageIds[fixtureName] { return id }
        let easy = CurlEasy(credential: .password(username: Self.admin.0, password: Self.admin.1), caFile: caFile)
        let upload = GatewayRequest(
            method: .post, url: baseURL + "/api/images", headers: ["Content-Type: application/octet-stream"],
            body: Array(try fixture(fixtureName)))
        let response = try easy.send(upload)
        guard let id = Self.object(response.text)?["id"] as? Int64 else { throw TestFailure("upload failed: \(response.text)") }
        imageIds[fixtureName] = id
        return id
    }

    static func object(_ json: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }
}
