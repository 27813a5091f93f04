import AsyncHTTPClient
import Foundation
import HubTestServers
import NIOCore
import NIOHTTP1
import TestSupport

/// The loopback Web Push service of `Tests/webpush/push_service.py`: an implementation apart from the gateway's that
/// checks each push's VAPID authorization and headers and decrypts its body with PyPI's http_ece.
final class WebPushTestService: Sendable {
    /// One push that passed every check, decrypted.
    struct Push: Decodable, Equatable {
        var subscription: String
        var plaintext: String
        var ttl: Int
        var urgency: String
        var topic: String?
    }

    let authority: TestCertificateAuthority
    private let process: SpawnedProcess
    private let control: String

    private init(authority: TestCertificateAuthority, process: SpawnedProcess, control: String) {
        self.authority = authority
        self.process = process
        self.control = control
    }

    static func start(directory: URL) async throws -> WebPushTestService {
        let authority = try TestCertificateAuthority(directory: directory)
        let portsFile = directory.appendingPathComponent("push-service-ports.json").path
        let script = repositoryRoot.appendingPathComponent("Tests/webpush/push_service.py").path
        let process = try SpawnedProcess(
            "/usr/bin/env",
            ["python3", script, "--cert", authority.serverCertificateFile, "--key", authority.serverKeyFile, "--ports-file", portsFile],
            output: .file(directory.appendingPathComponent("push-service.log").path))
        let started = await eventually(within: .seconds(20)) { FileManager.default.contents(atPath: portsFile) != nil || !process.isRunning }
        guard started, process.isRunning else {
            process.signal(SIGTERM)
            throw TestFailure("the push service did not start (is http_ece installed? scripts/test installs it)")
        }
        let ports = try JSONDecoder().decode([String: Int].self, from: try Data(contentsOf: URL(fileURLWithPath: portsFile)))
        return WebPushTestService(authority: authority, process: process, control: "http://127.0.0.1:\(ports["control"] ?? 0)")
    }

    func stop() {
        process.reapKilled()
    }

    /// A new browser subscription, as `PushSubscription.toJSON()` gives it, and its id at the service.
    func subscribe() async throws -> (json: String, id: String) {
        let json = try await call("/subscribe", body: "{}")
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let endpoint = object?["endpoint"] as? String ?? ""
        return (json, String(endpoint.split(separator: "/").last ?? ""))
    }

    /// The next push to subscription `id` gets `status` instead of being taken.
    func answer(_ id: String, status: Int, retryAfter: String? = nil) async throws {
        let retry = retryAfter.map { #","retryAfter":"\#($0)""# } ?? ""
        _ = try await call("/script/\(id)", body: #"{"status":\#(status)\#(retry)}"#)
    }

    func received() async throws -> [Push] {
        try JSONDecoder().decode([Push].self, from: Data(try await call("/received").utf8))
    }

    func violations() async throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(try await call("/violations").utf8))
    }

    private func call(_ path: String, body: String? = nil) async throws -> String {
        var request = HTTPClientRequest(url: control + path)
        if let body {
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }
}
