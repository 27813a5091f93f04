import Glibc
public import RichPushCore

extension DaemonConfiguration {
    /// Reads the password or token and says who it speaks for.
    public func credential() throws(SettingError) -> GatewayCredential {
        let secret = try self.secret.read()
        switch self.secret {
        case .tokenFile(let path):
            guard secret.hasPrefix("rp_") else { throw SettingError("the token file \(path) does not hold an API token (rp_…)") }
            return .token(secret)
        case .passwordFile, .passwordStandardInput:
            // Resolution requires a user unless a token is given.
            return .password(username: username ?? "", password: secret)
        }
    }
}

extension DaemonConfiguration.SecretSource {
    /// Reads the secret. One trailing newline is not part of it, so `echo secret > file` works.
    public func read() throws(SettingError) -> String {
        let text: String
        switch self {
        case .passwordFile(let path), .tokenFile(let path):
            guard let contents = Self.readAll(open(path, O_RDONLY | O_CLOEXEC)) else {
                throw SettingError("cannot read the \(setting == "token-file" ? "token" : "password") file \(path)")
            }
            text = contents
        case .passwordStandardInput:
            text = Self.readAll(dup(STDIN_FILENO)) ?? ""
        }
        let secret = Self.strippingOneNewline(text)
        guard !secret.isEmpty else { throw SettingError("the \(setting == "token-file" ? "token" : "password") is empty") }
        return secret
    }

    /// The setting that names this source.
    public var setting: String {
        switch self {
        case .passwordFile: "password-file"
        case .passwordStandardInput: "password-stdin"
        case .tokenFile: "token-file"
        }
    }

    /// Whether other users may read the file (mode bits for group or others).
    public var isReadableByOthers: Bool {
        switch self {
        case .passwordFile(let path), .tokenFile(let path):
            var info = stat()
            return stat(path, &info) == 0 && info.st_mode & 0o044 != 0
        case .passwordStandardInput:
            return false
        }
    }

    static func strippingOneNewline(_ text: String) -> String {
        // "\r\n" is one Character in Swift, like "\n".
        guard let last = text.last, last == "\n" || last == "\r\n" else { return text }
        return String(text.dropLast())
    }

    /// Reads a descriptor to its end and closes it; nil when it is not open or not readable.
    private static func readAll(_ descriptor: Int32) -> String? {
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
