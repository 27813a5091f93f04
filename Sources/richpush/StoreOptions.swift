import ArgumentParser
import Foundation
import RichPushCore

/// Where the store is, shared by `serve` and `user add` so both reach the same data.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Directory of the SQLite store (default ./data; env RICHPUSH_DATA_DIR).")
    var dataDirectory: String?
    @Option(name: .customLong("database-url"), help: "postgres://… selects PostgreSQL (env RICHPUSH_DATABASE_URL).")
    var databaseURL: String?
    @Option(name: .customLong("config"), help: "A file of 'name = value' lines, names as the long flags (env RICHPUSH_CONFIG).")
    var configFile: String?

    var flags: [String: String] {
        ["data-dir": dataDirectory, "database-url": databaseURL].compactMapValues { $0 }
    }

    /// The environment and the config file, the sources below the flags.
    func settings() throws -> SettingsResolver {
        let environment = ProcessInfo.processInfo.environment
        guard let path = configFile ?? environment["RICHPUSH_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return SettingsResolver(environment: environment)
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("cannot read the config file \(path)")
        }
        do {
            return SettingsResolver(environment: environment, file: try ConfigFile(parsing: text))
        } catch {
            throw ValidationError("config file \(path), \(error)")
        }
    }
}
