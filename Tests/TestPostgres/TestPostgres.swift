import Foundation
import TestSupport

/// The PostgreSQL server that `scripts/with-postgres` (run by `scripts/test`) starts for the tests, and a fresh
/// database on it for each test.
public enum TestPostgres {
    /// Set by `scripts/with-postgres`: the server's maintenance database.
    public static let environmentVariable = "RICHPUSH_TEST_DATABASE_URL"

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The server's URL; a test that needs PostgreSQL fails (it is never skipped) when there is none.
    public static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty else {
            throw Unavailable(
                description: "\(environmentVariable) is not set: run the tests with scripts/test, or scripts/with-postgres swift test …")
        }
        return url
    }

    /// Creates an empty database and returns its URL; with `icuLocale`, its text compares in that language's
    /// collation (ICU's), as a database created for people of that language does.
    public static func createDatabase(icuLocale: String? = nil) async throws -> String {
        let server = try serverURL()
        let name = "richpush_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        if let icuLocale {
            try await psql(server, "CREATE DATABASE \(name) TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '\(icuLocale)' LOCALE 'C.UTF-8'")
        } else {
            try await psql(server, "CREATE DATABASE \(name)")
        }
        guard var components = URLComponents(string: server) else { throw Unavailable(description: "\(server) is not a URL") }
        components.path = "/" + name
        return components.string!
    }

    /// Drops the database `url` names, disconnecting whoever still uses it, in the background: cleanups cannot wait,
    /// and the server with whatever is left on it goes when the tests end.
    public static func dropDatabase(_ url: String) {
        guard let server = try? serverURL(), let name = URLComponents(string: url)?.path.dropFirst(), !name.isEmpty else { return }
        Task { try? await psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }

    private static func psql(_ url: String, _ command: String) async throws {
        let result = try await SpawnedProcess.run("/usr/bin/env", ["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", command])
        guard result.status == 0 else {
            throw Unavailable(
                description: "psql could not run '\(command)' on \(url): \(result.output)")
        }
    }
}
