public import Foundation

/// A delivery at a wall-clock time in each device's own time zone (`deliverAtLocal`).
public struct LocalDelivery: Sendable, Equatable {
    public var time: LocalTime
    /// The zone of installations without one, or with a name the time-zone database does not know.
    public var defaultTimeZone: TimeZone

    public init(time: LocalTime, defaultTimeZone: TimeZone) {
        self.time = time
        self.defaultTimeZone = defaultTimeZone
    }

    /// The instant `time` is on the wall clock of `zone` (an IANA name; nil or unknown: the default zone). A time the
    /// clocks skip (02:30 when they spring forward) is the instant just after the gap; a time they pass twice (when
    /// they fall back) is the first of the two.
    public func instant(in zone: String?) -> Date {
        let timeZone = zone.flatMap(TimeZone.init(identifier:)) ?? defaultTimeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let dayStart = calendar.date(from: DateComponents(year: time.year, month: time.month, day: time.day)) else { return .distantFuture }
        // The first moment from the start of that day whose clock shows the time: Calendar resolves gaps and repeats.
        return calendar.nextDate(
            after: dayStart.addingTimeInterval(-1), matching: DateComponents(hour: time.hour, minute: time.minute, second: time.second),
            matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward) ?? .distantFuture
    }

    /// The earliest instant any zone's wall clock shows `time` (UTC+14).
    public var earliestInstant: Date {
        instant(in: "Pacific/Kiritimati")
    }

    /// The latest instant any zone's wall clock shows `time` (UTC−12).
    public var latestInstant: Date {
        instant(in: "Etc/GMT+12")
    }
}
