/// What the daemon remembers across restarts: where the stream stands, which notifications it already showed, and
/// which desktop alert shows which notification.
///
/// Stored as a few text lines, rewritten atomically after every event:
/// ```
/// richpushd-state 1
/// cursor 1234
/// shown 40 41 42
/// alert 42 17
/// ```
public struct DaemonState: Sendable, Equatable {
    /// The cursor of the last event handled; the stream resumes after it.
    public var cursor: Int64?
    /// Notifications already shown, oldest first, bounded to ``shownLimit``.
    public private(set) var shown: [Int64] = []
    /// The desktop notification id of each alert still on screen, by notification id.
    public var alerts: [Int64: UInt32] = [:]

    /// Enough to cover any replay the gateway can send after a restart.
    public static let shownLimit = 2000
    static let header = "richpushd-state 1"

    public init(cursor: Int64? = nil, shown: [Int64] = [], alerts: [Int64: UInt32] = [:]) {
        self.cursor = cursor
        self.shown = shown
        self.alerts = alerts
    }

    public func hasShown(_ richId: Int64) -> Bool {
        shown.contains(richId)
    }

    public mutating func markShown(_ richId: Int64) {
        guard !hasShown(richId) else { return }
        shown.append(richId)
        if shown.count > Self.shownLimit { shown.removeFirst(shown.count - Self.shownLimit) }
    }

    /// The notification a desktop alert shows.
    public func richId(ofAlert alertId: UInt32) -> Int64? {
        alerts.first { $0.value == alertId }?.key
    }

    public var text: String {
        var lines = [Self.header]
        if let cursor { lines.append("cursor \(cursor)") }
        if !shown.isEmpty { lines.append("shown " + shown.map(String.init).joined(separator: " ")) }
        for (richId, alertId) in alerts.sorted(by: { $0.key < $1.key }) { lines.append("alert \(richId) \(alertId)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads the text form back; nil when it is not a state file of this version.
    public init?(text: String) {
        let lines = text.split(separator: "\n")
        guard lines.first == Substring(Self.header) else { return nil }
        for line in lines.dropFirst() {
            let fields = line.split(separator: " ")
            switch fields.first {
            case "cursor":
                guard fields.count == 2, let cursor = Int64(fields[1]) else { return nil }
                self.cursor = cursor
            case "shown":
                for field in fields.dropFirst() {
                    guard let richId = Int64(field) else { return nil }
                    markShown(richId)
                }
            case "alert":
                guard fields.count == 3, let richId = Int64(fields[1]), let alertId = UInt32(fields[2]) else { return nil }
                alerts[richId] = alertId
            default:
                return nil
            }
        }
    }
}
