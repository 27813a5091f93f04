import Foundation
import TestSupport
import Testing

@Suite("The OpenAPI document")
struct OpenAPITests {
    let document = repositoryRoot.appendingPathComponent("Public/openapi.yaml").path

    @Test func itIsAValidOpenAPI3Document() async throws {
        let script = "import sys, yaml\nfrom openapi_spec_validator import validate\nvalidate(yaml.safe_load(open(sys.argv[1])))\n"
        let result = try await SpawnedProcess.run("/usr/bin/env", ["python3", "-c", script, document])
        #expect(result.status == 0, "\(result.output)")
    }

    /// Every operation of the API contract, as method and path.
    static let contract: [(String, String)] = [
        ("post", "/api/users"), ("get", "/api/users/me"), ("post", "/api/images"), ("post", "/api/notifications"),
        ("get", "/api/notifications"), ("get", "/api/notifications/{id}"), ("head", "/api/notifications/{id}"),
        ("delete", "/api/notifications/{id}"), ("get", "/api/notifications/{id}/info"), ("get", "/api/notifications/{id}/status"),
        ("get", "/api/installations"), ("put", "/api/installations/{installationId}"), ("get", "/api/installations/{installationId}"),
        ("delete", "/api/installations/{installationId}"), ("get", "/api/me/notifications"), ("patch", "/api/me/notifications/{id}"),
        ("post", "/api/me/notifications/{id}/receipts"), ("get", "/api/me/stream"), ("get", "/health"), ("get", "/health/ready"),
        ("get", "/metrics"), ("get", "/openapi.yaml"), ("get", "/"),
        ("get", "/api/audiences/count"), ("post", "/api/installations/import"),
        ("put", "/api/users/{username}/password"), ("delete", "/api/users/{username}"),
        ("get", "/api/notifications/{id}/deliveries"), ("get", "/api/notifications/{id}/timeline"), ("post", "/api/register"),
        ("put", "/api/register/{id}"), ("delete", "/api/register/{id}"), ("delete", "/api/me/notifications/{id}"),
        ("get", "/api/users/{username}/segments"), ("put", "/api/users/{username}/segments"),
        ("post", "/api/tokens"), ("get", "/api/tokens"), ("delete", "/api/tokens/{id}"), ("get", "/api/audit"),
        ("get", "/api/webpush/key"),
    ]

    @Test func itDocumentsEveryOperationOfTheContract() async throws {
        let script = """
            import sys, yaml
            paths = yaml.safe_load(open(sys.argv[1]))["paths"]
            for path, item in paths.items():
                for method in item:
                    if method != "parameters": print(method, path)
            """
        let result = try await SpawnedProcess.run("/usr/bin/env", ["python3", "-c", script, document])
        let documented = Set(result.output.split(separator: "\n").map(String.init))
        for (method, path) in Self.contract {
            #expect(documented.contains("\(method) \(path)"), "\(method) \(path) is not documented")
        }
    }
}
