import ArgumentParser
import Foundation
import RichPushArguments
import RichPushCLIClient
import RichPushCore

/// How `send`, `status` and `export` reach the gateway. Every option also has a `RICHPUSH_*` form and a config-file key.
struct ConnectionOptions: ParsableArguments {
    @Option(CommandLineSettings.server) var server
    @Option(CommandLineSettings.user) var user
    @Option(CommandLineSettings.passwordFile) var passwordFile
    @Option(CommandLineSettings.tokenFile) var tokenFile
    @Option(CommandLineSettings.caFile) var caFile
    @Option(CommandLineSettings.timeout) var timeout
    @Option(CommandLineSettings.config) var configFile
    @Flag(CommandLineSettings.passwordStandardInput) var passwordStandardInput
    @Flag(CommandLineSettings.json) var json

    var given: GivenFlags {
        var flags = GivenFlags(options: self)
        flags.add(CommandLineSettings.passwordStandardInput, passwordStandardInput)
        flags.add(CommandLineSettings.json, json)
        return flags
    }

    /// The sources of a command's settings, with `more` flags of its own; `known` are the keys its config file may
    /// hold.
    func settings(more: GivenFlags = GivenFlags(), known: [any SettingDescription], command: String) throws -> SettingSources {
        try SettingSources.load(given.merging(more), configFile: CommandLineSettings.config, known: known, command: command)
    }

    func connection(_ settings: SettingSources) throws -> Connection {
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
