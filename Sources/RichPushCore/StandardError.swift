import Glibc

/// Standard error written a line at a time with `write(2)`, retried after a signal until all of it is out: one call a
/// line where it fits, so the lines of several threads never interleave, and none waits in stdio's buffer.
public enum StandardError {
    public static func write(_ line: String) {
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            bytes = bytes.dropFirst(count)
        }
    }
}
