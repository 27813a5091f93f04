public import ArgumentParser
import Foundation
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
        @Option(name: .customLong("role"), help: "admin, marketer or member (env RICHPUSH_ROLE).") var roleFlag: Role?
        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (env RICHPUSH_PASSWORD_STDIN=1).")
        var passwordStdinFlag = false
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard Identifier.isValid(name) else { throw ValidationError("'\(name)' is not a valid username: 1 to 64 letters, digits or _ . @ -") }
        }

        /// `--role`, else its environment form or config-file key.
        private func role(from settings: SettingsResolver) throws -> Role {
            guard let text = settings.value("role", flagValue: roleFlag?.rawValue) else {
                throw ValidationError("missing --role (or \(settings.environmentName(of: "role"))): admin, marketer or member")
            }
            guard let role = Role(rawValue: text) else { throw ValidationError("role '\(text)' is not admin, marketer or member") }
            return role
        }

        private func readsPasswordFromStandardInput(_ settings: SettingsResolver) throws -> Bool {
            if passwordStdinFlag { return true }
            guard let text = settings.value("password-stdin", flagValue: nil) else { return false }
            guard let on = SettingsResolver.switchState(text) else { throw ValidationError("password-stdin must be true or false, not '\(text)'") }
            return on
        }

        func run() async throws {
            let settings = try store.settings()
            let role = try role(from: settings)
            let password = try readPassword(fromStandardInput: try readsPasswordFromStandardInput(settings))
            if let problem = PasswordHasher.problem(with: password) { throw ValidationError(problem) }
            let configuration: ServerConfiguration
            do {
                configuration = try ServerConfiguration(flags: store.flags, settings: settings)
            } catch {
                throw ValidationError(error.description)
            }
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

extension Role: ExpressibleByArgument {}
