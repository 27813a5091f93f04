import Glibc

/// A file operation that failed, with the path and the system's reason.
struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    var path: String
    var reason: String

    init(_ path: String, errno code: Int32 = errno) {
        self.path = path
        self.reason = String(cString: strerror(code))
    }

    var description: String { "\(path): \(reason)" }
}

/// Small POSIX file helpers: the daemon writes its state on every event and must never leave a torn file.
enum FileIO {
    /// The file's bytes, nil when it does not exist.
    static func readBytes(_ path: String) throws(FileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw FileError(path)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw FileError(path) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    static func read(_ path: String) throws(FileError) -> String? {
        try readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes to a temporary file, syncs it (unless `durable` is false) and renames it over `path`: readers see the
    /// old or the new file whole. Without the sync a crash may lose the file, which is fine for a cache.
    static func writeAtomically(_ path: String, bytes: some Collection<UInt8>, durable: Bool = true) throws(FileError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(temporary) }
        let contents = Array(bytes)
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = FileError(temporary)
                close(descriptor)
                throw error
            }
            written += count
        }
        guard !durable || fsync(descriptor) == 0 else {
            let error = FileError(temporary)
            close(descriptor)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw FileError(path) }
    }

    static func writeAtomically(_ path: String, contents: String) throws(FileError) {
        try writeAtomically(path, bytes: contents.utf8)
    }

    /// `mkdir -p` with mode 0700: payloads and state are private to the user.
    static func createDirectories(_ path: String) throws(FileError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw FileError(prefix) }
        }
    }

    static func remove(_ path: String) {
        unlink(path)
    }
}

/// Reads a whole text file, for callers outside the daemon (the command line reading its config file).
public enum FileText {
    public static func read(_ path: String) throws -> String? {
        try FileIO.read(path)
    }
}
