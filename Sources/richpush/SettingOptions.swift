import ArgumentParser
import Foundation
import RichPushArguments
import RichPushCore

extension SettingSources {
    /// The sources of a `richpush` command: the flags given, the environment, and the config file `--config` or
    /// `RICHPUSH_CONFIG` names, whose keys must be among `known`.
    static func load(_ flags: GivenFlags, configFile: Setting<String?>, known: [any SettingDescription], command: String) throws -> SettingSources {
        do {
            return try load(
                flags: flags, environment: ProcessInfo.processInfo.environment, configFile: configFile, known: Set(known.map(\.name)),
                program: command
            ) { try? String(contentsOfFile: $0, encoding: .utf8) }
        } catch {
            throw ValidationError(error.description)
        }
    }
}
