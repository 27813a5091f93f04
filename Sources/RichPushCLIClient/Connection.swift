public import Foundation
public import RichPushCore

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
    public init(settings sources: SettingSources, standardInput: () -> Data) throws(UsageError) {
        typealias S = CommandLineSettings
        let settings = UsageSettings(sources: sources)
        let server = try settings.required(S.server, "the gateway's URL, such as http://localhost:8080")
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw UsageError("--server must be an http:// or https:// URL, not '\(server)'") }
        self.server = server
        caFile = try settings.value(S.caFile)
        if let path = caFile, !FileManager.default.isReadableFile(atPath: path) {
            throw UsageError("cannot read the CA file \(path)")
        }
        if let path = try settings.value(S.tokenFile) {
            let token = try Self.secret(inFile: path, named: "token")
            guard token.hasPrefix("rp_") else { throw UsageError("the token file \(path) does not hold an API token (rp_…)") }
            credential = .token(token)
            return
        }
        let username = try settings.required(S.user, "the username to sign in with (or give --token-file)")
        let password: String
        if try settings.value(S.passwordStandardInput) {
            password = Self.withoutLineEnding(String(decoding: standardInput(), as: UTF8.self))
        } else if let path = try settings.value(S.passwordFile) {
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
