import ArgumentParser
import Foundation
import RichPushArguments
import RichPushCLIClient
import RichPushCore

/// How `send`, `status` and `export` reach the gateway. Every option also has a `RICHPUSH_*` form and a config-file key.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .setting(CommandLineSettings.server), help: .setting(CommandLineSettings.server)) var server: String?
    @Option(name: .setting(CommandLineSettings.user), help: .setting(CommandLineSettings.user)) var user: String?
    @Option(name: .setting(CommandLineSettings.passwordFile), help: .setting(CommandLineSettings.passwordFile)) var passwordFile: String?
    @Option(name: .setting(CommandLineSettings.tokenFile), help: .setting(CommandLineSettings.tokenFile)) var tokenFile: String?
    @Option(name: .setting(CommandLineSettings.caFile), help: .setting(CommandLineSettings.caFile)) var caFile: String?
    @Option(name: .setting(CommandLineSettings.timeout), help: .setting(CommandLineSettings.timeout)) var timeout: String?
    @Option(name: .setting(CommandLineSettings.config), help: .setting(CommandLineSettings.config)) var configFile: String?
    @Flag(name: .setting(CommandLineSettings.passwordStandardInput), help: .setting(CommandLineSettings.passwordStandardInput))
    var passwordStandardInput = false
    @Flag(name: .setting(CommandLineSettings.json), help: .setting(CommandLineSettings.json)) var json = false

    var given: GivenFlags {
        var flags = GivenFlags()
        flags.add(CommandLineSettings.server, server)
        flags.add(CommandLineSettings.user, user)
        flags.add(CommandLineSettings.passwordFile, passwordFile)
        flags.add(CommandLineSettings.tokenFile, tokenFile)
        flags.add(CommandLineSettings.caFile, caFile)
        flags.add(CommandLineSettings.timeout, timeout)
        flags.add(CommandLineSettings.config, configFile)
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
