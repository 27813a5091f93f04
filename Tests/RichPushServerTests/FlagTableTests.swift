import Foundation
import TestSupport
import Testing

/// The README's flag tables against the programs' own `--help`: every flag a table lists exists, every flag a
/// program takes is in its table, and the table and the help name the same environment form.
@Suite("The README's flag tables")
struct FlagTableTests {
    /// A program, the README section whose first flag table describes it, and the arguments that print its help.
    static let programs: [(section: String, executable: String, arguments: [String])] = [
        ("## Configuration", "richpush", ["serve", "--help"]),
        ("## richpushd", "richpushd", ["--help"]),
    ]

    @Test(arguments: programs.indices)
    func theTableListsExactlyTheFlagsTheProgramTakesWithTheirEnvironmentForms(program: Int) throws {
        let (section, executable, arguments) = Self.programs[program]
        let rows = try Self.table(after: section)
        let help = try Self.optionHelp(of: executable, arguments)
        #expect(Set(rows.flatMap(\.flags)) == Set(help.keys), "\(executable)")
        for row in rows {
            #expect(row.environment == row.flags.map(Self.environmentName), "\(row.flags)")
            for flag in row.flags {
                let text = help[flag] ?? ""
                #expect(text.contains(Self.environmentName(of: flag)), "\(executable) --help for \(flag): \(text)")
            }
        }
    }

    static func environmentName(of flag: String) -> String {
        "RICHPUSH_" + flag.dropFirst(2).uppercased().replacing("-", with: "_")
    }

    /// The rows of the first `| flag | env | default |` table after the heading `section`: the long flags of the
    /// first column and the environment variables of the second.
    static func table(after section: String) throws -> [(flags: [String], environment: [String])] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        guard let heading = lines.firstIndex(where: { $0.hasPrefix(section) }),
            let header = lines[heading...].firstIndex(where: { $0.hasPrefix("| flag | env |") })
        else { throw TestFailure("no flag table after \(section)") }
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|").map(String.init)
            func quoted(_ cell: String, prefix: String) -> [String] {
                cell.split(separator: "`").map(String.init).filter { $0.hasPrefix(prefix) }
            }
            return (quoted(cells[0], prefix: "--"), quoted(cells[1], prefix: "RICHPUSH_"))
        }
    }

    /// Each long option of a program's `--help` but `--help` itself, with its help text on one line.
    static func optionHelp(of executable: String, _ arguments: [String]) throws -> [String: String] {
        let path = GatewayProcess.executable.deletingLastPathComponent().appendingPathComponent(executable).path
        let result = try SpawnedProcess.run(path, arguments)
        var help: [String: String] = [:]
        var current: String?
        for line in result.output.split(separator: "\n") {
            if let match = line.firstMatch(of: /^  (?:-[a-z], )?(--[a-z0-9-]+)/) {
                current = String(match.1)
                help[String(match.1), default: ""] = String(line)
            } else if let option = current, line.hasPrefix("   ") {
                help[option, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                current = nil
            }
        }
        help["--help"] = nil
        return help
    }
}
