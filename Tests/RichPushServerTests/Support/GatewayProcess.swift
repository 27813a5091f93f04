import AsyncHTTPClient
import Foundation
import GatewayTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TestSupport

extension GatewayProcess {
    /// A gateway process with the test admin's password.
    convenience init(extraArguments: [String] = [], caFile: String? = nil, dataDirectory: URL? = nil) throws {
        try self.init(adminPassword: Credentials.admin.password, extraArguments: extraArguments, caFile: caFile, dataDirectory: dataDirectory)
    }

    /// This process's environment plus what the QA scripts read: the gateway's address, the admin's password, the
    /// PNG fixtures and the logo.
    var scriptEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["BASE"] = baseURL
        environment["ADMIN_PASSWORD"] = adminPassword
        environment["FIXTURES"] = repositoryRoot.appendingPathComponent("Tests/Fixtures").path
        environment["LOGO"] = repositoryRoot.appendingPathComponent("img/logo.png").path
        return environment
    }

    /// Sends one request and returns status and body; over HTTPS with a client that trusts only the gateway's CA.
    func request(_ method: HTTPMethod, _ path: String, as user: Credentials?, json: String? = nil) async throws -> (status: Int, body: String) {
        let answer = try await answer(method, path, as: user, body: json.map { (ByteBuffer(string: $0), "application/json") })
        return (answer.status, answer.body)
    }

    /// Sends one request with `body` of its content type and returns the whole answer.
    func answer(_ method: HTTPMethod, _ path: String, as user: Credentials?, body: (bytes: ByteBuffer, type: String)? = nil) async throws -> (
        status: Int, headers: HTTPHeaders, body: String
    ) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let user { request.headers.add(name: "Authorization", value: user.authorization) }
        if let body {
            request.headers.add(name: "Content-Type", value: body.type)
            request.body = .bytes(body.bytes)
        }
        // A client of the request's own: a shared pool kept what it learnt while a killed gateway refused
        // connections and refused the restarted one's requests too.
        var configuration = HTTPClient.Configuration()
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            let answer = try await Self.send(request, with: client)
            try await client.shutdown()
            return answer
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Creates member alice with her direct laptop, as the process tests' scenes start; returns her credentials.
    func addAliceWithLaptop() async throws -> Credentials {
        let alice = Credentials(username: "alice", password: "alice-password")
        let created = try await request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
        guard created.status == 201 else { throw TestFailure("alice was not created: \(created.status) \(created.body)") }
        let registered = try await request(.PUT, "/api/installations/laptop", as: alice, json: #"{"platform":"direct","pushChannel":"laptop"}"#)
        guard registered.status == 201 else { throw TestFailure("alice's laptop was not registered: \(registered.status) \(registered.body)") }
        return alice
    }

    /// Imports `count` installations as the admin, 5000 to a request (the most one takes); `entry` gives the JSON
    /// object of the installation numbered `index`.
    func importInstallations(_ count: Int, entry: (_ index: Int) -> String) async throws {
        for first in stride(from: 0, to: count, by: 5000) {
            let entries = (first..<min(first + 5000, count)).map(entry)
            let imported = try await request(
                .POST, "/api/installations/import", as: .admin, json: #"{"installations":[\#(entries.joined(separator: ","))]}"#)
            guard imported.status == 200 else { throw TestFailure("the import was refused: \(imported.body)") }
        }
    }

    private static func send(_ request: HTTPClientRequest, with client: HTTPClient) async throws -> (
        status: Int, headers: HTTPHeaders, body: String
    ) {
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }
}
