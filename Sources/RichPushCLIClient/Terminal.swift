import Foundation

/// Where a command writes: its standard output and error, and whether the output is a terminal (progress bar) or
/// a file or pipe (plain lines).
public struct Terminal: Sendable {
    public let write: @Sendable (String) -> Void
    public let writeError: @Sendable (String) -> Void
    /// Raw bytes to standard output, which may end inside a character (a file streamed through).
    public let writeBytes: @Sendable ([UInt8]) -> Void
    public let isInteractive: Bool
    public let width: Int

    public init(
        isInteractive: Bool, width: Int = 80, write: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void,
        writeBytes: (@Sendable ([UInt8]) -> Void)? = nil
    ) {
        self.isInteractive = isInteractive
        self.width = width
        self.write = write
        self.writeError = writeError
        self.writeBytes = writeBytes ?? { write(String(decoding: $0, as: UTF8.self)) }
    }

    /// The process's own standard output and error.
    public static var standard: Terminal {
        let interactive = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        return Terminal(
            isInteractive: interactive, width: columns(),
            write: { text in
                FileHandle.standardOutput.write(Data(text.utf8))
            },
            writeError: { text in
                FileHandle.standardError.write(Data(text.utf8))
            },
            writeBytes: { bytes in
                FileHandle.standardOutput.write(Data(bytes))
            })
    }

    /// The terminal's width as the kernel knows it, else from `COLUMNS`, else 80.
    static func columns() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 20 { return columns }
        return 80
    }
}
