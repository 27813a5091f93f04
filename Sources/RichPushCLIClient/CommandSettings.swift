public import Foundation
public import RichPushCore

/// The settings of one `richpush send` or `richpush status`: the flags given, then `RICHPUSH_*` variables, then the
/// config file, as ``SettingsResolver`` orders them.
public struct CommandSettings: Sendable {
    /// Flags by long name; a flag without a value (`--wait`) is `"true"`.
    public let flags: [String: String]
    public let resolver: SettingsResolver

    public init(flags: [String: String], resolver: SettingsResolver) {
        self.flags = flags
        self.resolver = resolver
    }

    public func value(_ name: String) -> String? {
        resolver.value(name, flagValue: flags[name])
    }

    /// A setting given several times: each repetition of its flag is one entry (joined by newlines in ``flags``);
    /// from the environment or the config file, entries are separated by commas.
    public func list(_ name: String) -> [String] {
        if let given = flags[name] { return given.split(separator: "\n").map(String.init) }
        guard let value = resolver.value(name, flagValue: nil) else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public func required(_ name: String, _ hint: String) throws(UsageError) -> String {
        guard let value = value(name), !value.isEmpty else {
            throw UsageError("--\(name) is required (or \(resolver.environmentName(of: name))): \(hint)")
        }
        return value
    }

    /// A switch: set by its flag, or by `1`, `true`, `yes` (`0`, `false`, `no`) in the environment or the file.
    public func isOn(_ name: String) throws(UsageError) -> Bool {
        guard let text = value(name) else { return false }
        guard let on = SettingsResolver.switchState(text) else { throw UsageError("\(name) must be true or false, not '\(text)'") }
        return on
    }

    /// How long to follow delivery before giving up, if at all.
    public func timeout() throws(UsageError) -> Duration? {
        guard let text = value("timeout") else { return nil }
        guard let seconds = DurationText.seconds(in: text), seconds > 0 else {
            throw UsageError("--timeout must be a duration such as 90s, 10m or 1h, not '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }
}

/// Who speaks to the gateway: a user with a password, or an API token, which names its user itself.
public enum Credential: Sendable, Equatable {
    case password(username: String, password: String)
    case token(String)

    /// The `Authorization` header that presents it.
    public var authorization: String {
        switch self {
        case .password(let username, let password): "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        case .token(let token): "Bearer " + token
        }
    }
}

/// Where the gateway is and who speaks to it. A password or token is never a flag value (other users see flags in
/// `ps`): it comes from a file or from standard input.
public struct Connection: Sendable, Equatable {
    public var server: String
    public var credential: Credential
    /// Extra CA certificates (PEM) trusted for an HTTPS gateway, beside the system's.
    public var caFile: String?

    public init(server: String, credential: Credential, caFile: String? = nil) {
        self.server = server
        self.credential = credential
        self.caFile = caFile
    }

    /// Resolves `server`, then `token-file`, or else `user` with `password-file` (or `password-stdin`, read through
    /// `standardInput`).
    public init(settings: CommandSettings, standardInput: () -> Data) throws(UsageError) {
        let server = try settings.required("server", "the gateway's URL, such as http://localhost:8080")
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw UsageError("--server must be an http:// or https:// URL, not '\(server)'") }
        self.server = server
        caFile = settings.value("ca-file").flatMap { $0.isEmpty ? nil : $0 }
        if let path = caFile, !FileManager.default.isReadableFile(atPath: path) {
            throw UsageError("cannot read the CA file \(path)")
        }
        if let path = settings.value("token-file"), !path.isEmpty {
            let token = try Self.secret(inFile: path, named: "token")
            guard token.hasPrefix("rp_") else { throw UsageError("the token file \(path) does not hold an API token (rp_…)") }
            credential = .token(token)
            return
        }
        let username = try settings.required("user", "the username to sign in with (or give --token-file)")
        let password: String
        if try settings.isOn("password-stdin") {
            password = Self.withoutLineEnding(String(decoding: standardInput(), as: UTF8.self))
        } else if let path = settings.value("password-file"), !path.isEmpty {
            password = try Self.secret(inFile: path, named: "password")
        } else {
            throw UsageError(
                "give the password in a file with --password-file F (or RICHPUSH_PASSWORD_FILE), or on standard input with "
                    + "--password-stdin, or an API token in a file with --token-file F")
        }
        guard !password.isEmpty else { throw UsageError("the password is empty") }
        credential = .password(username: username, password: password)
    }

    private static func secret(inFile path: String, named name: String) throws(UsageError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read the \(name) file \(path)") }
        return withoutLineEnding(String(decoding: data, as: UTF8.self))
    }

    /// One trailing line ending is not part of the password, as `echo secret > file` writes one.
    static func withoutLineEnding(_ text: String) -> String {
        var text = text
        // "\r\n" is one Character, so this drops exactly one line ending of either kind.
        if text.last == "\n" || text.last == "\r\n" { text.removeLast() }
        return text
    }
}
