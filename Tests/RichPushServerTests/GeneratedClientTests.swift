import Foundation
import TestSupport
import Testing

/// A client nobody on the team wrote: openapi-python-client's, generated from the document the gateway serves.
@Suite("Generated clients")
struct GeneratedClientTests {
    @Test func aGeneratedPythonClientDrivesTheTutorialAndACampaign() async throws {
        let gateway = try GatewayProcess()
        defer { gateway.cleanUp() }
        try await gateway.start()
        let result = try await SpawnedProcess.run(
            "/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("Tests/clients/python_flow.py").path],
            environment: gateway.scriptEnvironment)
        #expect(result.status == 0, "\(result.output)\n--- gateway log ---\n\(gateway.log)")
        #expect(result.output.contains("the generated client drove the tutorial and a campaign"))
    }
}
