import Glibc
import RichPushCore

/// Alerts as readable lines on standard output, for a daemon without a desktop (a server, a container, a systemd
/// unit before the session bus exists): the journal keeps them.
final class ConsolePresenter: AlertPresenter {
    private let output: Int32

    init(output: Int32 = STDOUT_FILENO) {
        self.output = output
    }

    var descriptor: Int32? { nil }
    var isUsable: Bool { true }
    var unanswered: Int { 0 }

    func show(_ alert: Alert, then shown: @escaping (Result<UInt32?, AlertFailure>) -> Void) {
        writeLine(for: alert)
        shown(.success(nil))
    }

    /// Writes the alert as one line.
    func writeLine(for alert: Alert) {
        var line = "richpush \(alert.richId) [\(alert.richType.rawValue)] \(alert.summary): \(Self.oneLine(alert.message))"
        if let detail = alert.detail { line += " | \(Self.oneLine(detail))" }
        if let file = alert.imageFile { line += " | image \(file)" }
        line += "\n"
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes = bytes.dropFirst(count)
        }
    }

    func close(_ alertId: UInt32) {}

    func interactions() -> [Interaction] { [] }

    func abandon() {}

    /// Line breaks and tabs become spaces: one alert is one line of the journal.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
