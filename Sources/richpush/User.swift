import ArgumentParser
import Foundation
import RichPushArguments
import RichPushCore
import RichPushServer

/// `richpush user …`: manages users directly in the store.
struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage users in the store.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user in the store that `serve` with the same settings uses.",
            discussion: "The password comes from standard input with --password-stdin (one trailing newline is not part of it), or from a prompt."
        )

        @Argument(help: "The username: 1 to 64 letters, digits or _ . @ -.") var name: String
        @Option(UserAddSettings.role) var role
        @Flag(UserAddSettings.passwordStandardInput) var passwordStandardInput
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard Identifier.isValid(name) else { throw ValidationError("'\(name)' is not a valid username: 1 to 64 letters, digits or _ . @ -") }
        }

        func run() async throws {
            var flags = GivenFlags(options: self)
            flags.add(UserAddSettings.passwordStandardInput, passwordStandardInput)
            // The config file is the one `serve` reads: its keys are serve's settings and these.
            let sources = try SettingSources.load(
                flags, configFile: ServeSettings.config, known: ServeSettings.all + UserAddSettings.all, command: "richpush user add")
            let (role, fromStandardInput, configuration): (Role, Bool, ServerConfiguration)
            do {
                role = try sources.required(UserAddSettings.role, "admin, marketer or member")
                fromStandardInput = try sources.value(UserAddSettings.passwordStandardInput)
                configuration = try ServerConfiguration(sources)
            } catch {
                throw ValidationError(error.description)
            }
            let password = try readPassword(fromStandardInput: fromStandardInput)
            if let problem = PasswordHasher.problem(with: password) { throw ValidationError(problem) }
            do {
                try await createUser(
                    named: name, password: password, role: role,
                    localAccount: ProcessInfo.processInfo.environment["USER"] ?? "unknown", configuration: configuration)
            } catch let error as DuplicateUser {
                throw ValidationError(error.description)
            }
            print("created user \(name) with role \(role.rawValue)")
        }

        private func readPassword(fromStandardInput: Bool) throws -> String {
            if fromStandardInput {
                var text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                // "\r\n" is one Character, so this drops exactly one line ending of either kind.
                if text.last == "\n" || text.last == "\r\n" { text.removeLast() }
                return text
            }
            guard isatty(STDIN_FILENO) == 1 else { throw ValidationError("no terminal to ask for the password: use --password-stdin") }
            guard let first = getpass("Password: ").map({ String(cString: $0) }),
                let second = getpass("Again: ").map({ String(cString: $0) })
            else { throw ValidationError("no password given") }
            guard first == second else { throw ValidationError("the passwords differ") }
            return first
        }
    }
}
