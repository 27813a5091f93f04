import ArgumentParser
import Foundation
import RichPushCLIClient
import RichPushCore

/// How `send` and `status` reach the gateway. Every option also has a `RICHPUSH_*` form and a config-file key.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The gateway's URL, e.g. http://localhost:8080 (env RICHPUSH_SERVER).") var server: String?
    @Option(help: "The username to sign in with (env RICHPUSH_USER).") var user: String?
    @Option(name: .customLong("password-file"), help: "A file holding the password; one trailing newline is ignored (env RICHPUSH_PASSWORD_FILE).")
    var passwordFile: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input instead.") var passwordFromStandardInput = false
    @Option(
        name: .customLong("token-file"),
        help: "A file holding an API token (rp_…) to use instead of a user and password; the token names its user (env RICHPUSH_TOKEN_FILE).")
    var tokenFile: String?
    @Option(name: .customLong("ca-file"), help: "Extra CA certificates (PEM) trusted for an HTTPS gateway (env RICHPUSH_CA_FILE).")
    var caFile: String?
    @Flag(help: "Write JSON on standard output instead of sentences (env RICHPUSH_JSON).") var json = false
    @Option(help: "With --wait, give up after this long, e.g. 90s, 10m (env RICHPUSH_TIMEOUT).") var timeout: String?
    @Option(name: .customLong("config"), help: "A file of 'name = value' lines, names as the long flags (env RICHPUSH_CONFIG).")
    var configFile: String?

    var flags: [String: String] {
        [
            "server": server, "user": user, "password-file": passwordFile, "password-stdin": passwordFromStandardInput ? "true" : nil,
            "token-file": tokenFile, "ca-file": caFile, "json": json ? "true" : nil, "timeout": timeout,
        ].compactMapValues { $0 }
    }

    /// The resolved settings of the command, with `more` flags of its own.
    func settings(more: [String: String?]) throws -> CommandSettings {
        let environment = ProcessInfo.processInfo.environment
        var file = ConfigFile()
        if let path = configFile ?? environment["RICHPUSH_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("cannot read the config file \(path)") }
            do {
                file = try ConfigFile(parsing: text)
            } catch {
                throw ValidationError("config file \(path), \(error)")
            }
        }
        return CommandSettings(
            flags: flags.merging(more.compactMapValues { $0 }) { first, _ in first },
            resolver: SettingsResolver(environment: environment, file: file))
    }

    func connection(_ settings: CommandSettings) throws -> Connection {
        do {
            return try Connection(settings: settings) { FileHandle.standardInput.readDataToEndOfFile() }
        } catch {
            throw ValidationError(error.description)
        }
    }
}

extension CommandExit {
    /// Ends the command with this status.
    func exit() throws {
        if self != .success { throw ExitCode(rawValue) }
    }
}
