import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Operations")
struct OperationsTests {
    @Test func healthAndReadinessNeedNoCredentials() async throws {
        try await TestGateway().run { session in
            let health = try await session.request(.get, "/health").json()
            let ready = try await session.request(.get, "/health/ready").json()
            #expect(health["status"] as? String == "ok")
            #expect(ready["status"] as? String == "ready")
        }
    }

    @Test func metricsArePrometheusTextWithoutSecrets() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            _ = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.request(.get, "/api/users/me", as: Credentials(username: "alice", password: "wrong-password"))
            let metrics = try await session.request(.get, "/metrics")
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("richpush_notifications_created_total"))
            #expect(metrics.text.contains("richpush_auth_failures_total"))
            #expect(!metrics.text.contains("alice"))
            #expect(!metrics.text.contains(alice.password))
        }
    }

    @Test func everyMetricFamilySaysWhatItCountsInAHelpLine() async throws {
        try await TestGateway().run { session in
            _ = try await session.request(.get, "/api/users/me", as: Credentials(username: "nobody", password: "wrong-password"))
            let lines = try await session.request(.get, "/metrics").text.split(separator: "\n")
            let families = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
            let described = Set(lines.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] })
            #expect(families.contains("richpush_auth_failures_total"))
            #expect(families.filter { !described.contains($0) } == [])
        }
    }

    @Test func theOpenAPIDocumentIsServed() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/openapi.yaml")
            #expect(response.status == .ok)
            #expect(response.text.hasPrefix("openapi: 3."))
            #expect(response.headers[.contentType] == "application/yaml")
        }
    }

    @Test func theConsoleIsServedAtTheRoot() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/")
            #expect(response.status == .ok)
            #expect(response.text.contains("<title>richpush</title>"))
        }
    }

    @Test func anUnknownPathIsAJSON404() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/nothing-here", as: .admin)
            #expect(response.status == .notFound)
            #expect(try response.error().code == "request.notFound")
        }
    }
}
