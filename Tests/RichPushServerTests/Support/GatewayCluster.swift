import Foundation
import NIOHTTP1
import TestPostgres
import TestSupport

/// Real `richpush serve` processes sharing one fresh PostgreSQL database, as they would behind a load balancer.
final class GatewayCluster: @unchecked Sendable {
    /// The lease the processes give claimed deliveries: short, so a test sees a dead process's work taken over.
    static let leaseSeconds = 5

    let databaseURL: String
    let gateways: [GatewayProcess]

    /// Streams only hear of events through the store's signals: the heartbeat, which also makes a stream look
    /// again, is set far longer than any test waits.
    init(count: Int, extraArguments: [String] = []) async throws {
        let databaseURL = try await TestPostgres.createDatabase()
        self.databaseURL = databaseURL
        gateways = try (0..<count).map { _ in
            try GatewayProcess(
                extraArguments: [
                    "--database-url", databaseURL, "--heartbeat-interval", "120", "--dispatch-lease", String(Self.leaseSeconds),
                ] + extraArguments)
        }
    }

    subscript(index: Int) -> GatewayProcess { gateways[index] }

    func start() async throws {
        for gateway in gateways { try await gateway.start() }
    }

    func cleanUp() {
        for gateway in gateways { gateway.cleanUp() }
        TestPostgres.dropDatabase(databaseURL)
    }

    /// The deliveries a process reports sending in its Prometheus metrics.
    static func sentDeliveries(by gateway: GatewayProcess) async throws -> Int {
        let metrics = try await gateway.request(.GET, "/metrics", as: nil).body
        return metrics.split(separator: "\n")
            .filter { $0.hasPrefix("richpush_deliveries_total") && $0.contains(#"outcome="sent""#) }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0) { $0 + Int($1) }
    }
}
