import Glibc

/// `$XDG_STATE_HOME/richpush`: the installation id (stable for the life of the device) and the ``DaemonState``.
struct StateDirectory {
    let path: String

    var installationIdPath: String { path + "/installation-id" }
    var statePath: String { path + "/state" }

    /// The installation id, created on first use: the host name and random hex, within the gateway's
    /// 64 characters of letters, digits and `_ . @ -`.
    func installationId() throws(FileError) -> String {
        if let text = try FileIO.read(installationIdPath) {
            let id = text.trimmingASCIIWhitespace()
            if Self.isValidInstallationId(id) { return id }
        }
        var bytes = [UInt8](repeating: 0, count: 8)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let host = Self.hostName().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(40)
        let id = (host.isEmpty ? "linux" : String(host)) + "-" + hex
        try FileIO.createDirectories(path)
        try FileIO.writeAtomically(installationIdPath, contents: id + "\n")
        return id
    }

    /// The saved state; a missing file is a first start, an unreadable one is replaced by an empty state.
    func loadState() throws(FileError) -> (state: DaemonState, damaged: Bool) {
        guard let text = try FileIO.read(statePath) else { return (DaemonState(), false) }
        guard let state = DaemonState(text: text) else { return (DaemonState(), true) }
        return (state, false)
    }

    func save(_ state: DaemonState) throws(FileError) {
        try FileIO.createDirectories(path)
        try FileIO.writeAtomically(statePath, contents: state.text)
    }

    static func isValidInstallationId(_ id: String) -> Bool {
        (1...64).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.@-".contains($0)) }
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
