#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Hours of each day, on a device's own clock, in which marketers' deliveries wait (`--quiet-hours 22:00-08:00`);
/// a span whose end is earlier than its start runs past midnight.
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    /// Minutes after midnight.
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Reads `HH:MM-HH:MM`; nil when `text` is not that or the span is empty.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start != end else { return nil }
        self.init(start: start, end: end)
    }

    private static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    public func contains(minuteOfDay minute: Int) -> Bool {
        start < end ? (start..<end).contains(minute) : minute >= start || minute < end
    }

    /// When the quiet hours `instant` falls in end on the wall clock of `zone`, or nil when it is outside them. An end
    /// the clocks skip (a change of offset) is the instant just after the gap.
    public func end(after instant: Date, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let clock = calendar.dateComponents([.hour, .minute], from: instant)
        guard let hour = clock.hour, let minute = clock.minute, contains(minuteOfDay: hour * 60 + minute) else { return nil }
        return calendar.nextDate(
            after: instant, matching: DateComponents(hour: end / 60, minute: end % 60, second: 0), matchingPolicy: .nextTime,
            repeatedTimePolicy: .first, direction: .forward)
    }

    public var description: String {
        func clock(_ minutes: Int) -> String {
            let hour = minutes / 60
            let minute = minutes % 60
            return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
        }
        return "\(clock(start))-\(clock(end))"
    }
}
