import Glibc

extension DaemonConfiguration.PasswordSource {
    /// Reads the password. One trailing newline is not part of it, so `echo secret > file` works.
    public func read() throws(DaemonConfigurationError) -> String {
        let text: String
        switch self {
        case .file(let path):
            guard let contents = Self.readAll(open(path, O_RDONLY | O_CLOEXEC)) else {
                throw .invalid(setting: "password-file", reason: "\(path) cannot be read")
            }
            text = contents
        case .standardInput:
            text = Self.readAll(dup(STDIN_FILENO)) ?? ""
        }
        let password = Self.strippingOneNewline(text)
        guard !password.isEmpty else { throw .invalid(setting: "password", reason: "is empty") }
        return password
    }

    /// Whether other users may read the password file (mode bits for group or others).
    public var isReadableByOthers: Bool {
        guard case .file(let path) = self else { return false }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & 0o044 != 0
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
