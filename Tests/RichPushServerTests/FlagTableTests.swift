import Foundation
import RichPushCLIClient
import RichPushCore
import RichPushDaemon
import RichPushServer
import TestSupport
import Testing

/// The settings' one declaration against what users read: each program's `--help` lists exactly its settings' flags
/// with their help, and the documentation's tables are the ones the declarations make.
@Suite("The settings' tables and help")
struct FlagTableTests {
    struct Program: Sendable, CustomTestStringConvertible {
        let executable: String
        let arguments: [String]
        let settings: [any SettingDescription]
        /// The page of `docs/` and its heading whose first flag table lists them; nil when the program has no table of
        /// its own.
        let section: (page: String, heading: String)?

        var testDescription: String { ([executable] + arguments.dropLast()).joined(separator: " ") }
    }

    static let programs = [
        Program(
            executable: "richpush", arguments: ["serve", "--help"], settings: ServeSettings.all, section: ("configuration.md", "# Configuration")),
        Program(
            executable: "richpush", arguments: ["user", "add", "--help"], settings: UserAddSettings.all,
            section: ("configuration.md", "## Adding users")),
        Program(
            executable: "richpush", arguments: ["send", "--help"], settings: CommandLineSettings.send,
            section: ("cli.md", "# Sending from the terminal")),
        Program(executable: "richpush", arguments: ["status", "--help"], settings: CommandLineSettings.status, section: nil),
        Program(executable: "richpush", arguments: ["export", "--help"], settings: CommandLineSettings.connection, section: nil),
        Program(executable: "richpushd", arguments: ["--help"], settings: DaemonSettings.all, section: ("daemon.md", "# richpushd")),
    ]

    @Test(arguments: programs)
    func theHelpListsEverySettingWithItsDefaultAndEnvironmentForm(program: Program) async throws {
        let help = try await Self.optionHelp(of: program.executable, program.arguments)
        let flagged = program.settings.filter(\.hasFlag)
        #expect(Set(help.keys) == Set(flagged.map { "--" + $0.name }))
        for setting in flagged {
            #expect(Self.words(help["--" + setting.name] ?? "").contains(Self.words(setting.help)), "--\(setting.name)")
        }
    }

    @Test(arguments: programs.filter { $0.section != nil })
    func theDocumentedTableIsTheOneTheSettingsMake(program: Program) throws {
        let section = try #require(program.section)
        let expected = SettingTable.markdown(program.settings)
        let table = try Self.table(in: section.page, after: section.heading)
        if table != expected {
            // The table to paste into the page.
            let output = repositoryRoot.appendingPathComponent(".test-output/settings-tables")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            try expected.write(to: output.appendingPathComponent(section.heading.filter(\.isLetter) + ".md"), atomically: true, encoding: .utf8)
        }
        #expect(table == expected, "the table of docs/\(section.page) after \(section.heading)")
    }

    @Test func thePackagedConfigFileIsTheOneTheSettingsMake() throws {
        let file = (try? String(contentsOf: repositoryRoot.appendingPathComponent("dist/richpush.conf"), encoding: .utf8)) ?? ""
        if file != ServeSettings.packagedConfigFile {
            // The file to copy into dist/.
            let output = repositoryRoot.appendingPathComponent(".test-output")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            try ServeSettings.packagedConfigFile.write(to: output.appendingPathComponent("richpush.conf"), atomically: true, encoding: .utf8)
        }
        #expect(file == ServeSettings.packagedConfigFile, "dist/richpush.conf")
        #expect(try ConfigFile(parsing: file).values == ["data-dir": "/var/lib/richpush"])
    }

    /// The first `| flag | env |` table of `docs/page` after the heading `section`, as text.
    static func table(in page: String, after section: String) throws -> String {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs").appendingPathComponent(page), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let heading = lines.firstIndex(where: { $0 == section || $0.hasPrefix(section + ":") }),
            let header = lines[heading...].firstIndex(where: { $0.hasPrefix("| flag | env |") })
        else { throw TestFailure("no flag table after \(section) in docs/\(page)") }
        return lines[header...].prefix { $0.hasPrefix("|") }.map { $0 + "\n" }.joined()
    }

    static func words(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Each long option of a program's `--help` but `--help` itself, with its help text on one line.
    static func optionHelp(of executable: String, _ arguments: [String]) async throws -> [String: String] {
        let path = GatewayProcess.executable.deletingLastPathComponent().appendingPathComponent(executable).path
        let result = try await SpawnedProcess.run(path, arguments)
        var help: [String: String] = [:]
        var current: String?
        for line in result.output.split(separator: "\n") {
            if let match = line.firstMatch(of: /^  (?:-[a-z], )?(--[a-z0-9-]+)(?: <[^>]+>)?(.*)$/) {
                current = String(match.1)
                help[String(match.1), default: ""] = String(match.2)
            } else if let option = current, line.hasPrefix("   ") {
                help[option, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                current = nil
            }
        }
        help["--help"] = nil
        help["--version"] = nil
        return help
    }
}
