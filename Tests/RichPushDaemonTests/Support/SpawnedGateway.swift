import Foundation
import TestSupport

@testable import RichPushDaemon

/// The real `richpush` gateway as a separate process, on a fresh store; restartable on the same port and data. The
/// daemon's tests speak to it with the daemon's own HTTP client.
final class SpawnedGateway: @unchecked Sendable {
    let process: GatewayProcess
    static let adminPassword = "admin-secret-1"
    private var imageIds: [String: Int64] = [:]
    /// Where the certificate the gateway serves HTTPS with is kept.
    private let certificates: TemporaryDirectory

    /// The CA whose certificate the gateway serves HTTPS with; nil: plain HTTP.
    var caFile: String? { process.caFile }

    /// A gateway on plain HTTP, or with `https` on HTTPS with a certificate for 127.0.0.1 that openssl issues to it
    /// here, trusted through ``caFile`` only; `extraArguments` go to `richpush serve`.
    init(https: Bool = false, extraArguments: [String] = []) async throws {
        certificates = try TemporaryDirectory()
        guard https else {
            process = try GatewayProcess(adminPassword: Self.adminPassword, extraArguments: extraArguments)
            return
        }
        let (certificate, key) = try await Self.issueCertificate(in: certificates, named: "gateway")
        process = try GatewayProcess(
            adminPassword: Self.adminPassword, extraArguments: ["--tls-cert-file", certificate, "--tls-key-file", key] + extraArguments,
            caFile: certificate)
    }

    /// A self-signed certificate for 127.0.0.1 that openssl issues in `directory`: its file (which is also the CA to
    /// trust) and its key's.
    static func issueCertificate(in directory: TemporaryDirectory, named name: String) async throws -> (certificate: String, key: String) {
        let certificate = directory.path + "/\(name).pem"
        let key = directory.path + "/\(name)-key.pem"
        let issued = try await SpawnedProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        guard issued.status == 0 else { throw TestFailure("openssl could not issue the certificate: \(issued.output)") }
        return (certificate, key)
    }

    var baseURL: String { process.baseURL }
    var log: String { process.log }

    func start() async throws {
        try await process.start()
    }

    /// Stops the gateway (SIGTERM: streams end cleanly; SIGKILL: a crash).
    func stop(_ signal: Int32 = SIGTERM) async {
        await process.terminate(signal)
    }

    /// Ends the gateway at once, for cleanups, which cannot wait.
    func kill() {
        process.kill()
    }

    /// Freezes and thaws the process: connections stay open but nothing, not even a heartbeat, comes through.
    func pause() { process.pause() }
    func resume() { process.resume() }

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
