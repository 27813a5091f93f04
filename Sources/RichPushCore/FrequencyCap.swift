/// At most `count` marketers' notifications per user within any `period` (`--frequency-cap 3/24h`).
public struct FrequencyCap: Sendable, Equatable, CustomStringConvertible {
    public var count: Int
    /// Seconds.
    public var period: Double

    public init(count: Int, period: Double) {
        self.count = count
        self.period = period
    }

    /// Reads `N/PERIOD`, the period as ``DurationText`` spells it (`3/24h`, `1/1d12h`); nil when `text` is not that, or
    /// the count or period is not positive.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0]), count > 0,
            let period = DurationText.seconds(in: String(parts[1])), period > 0
        else { return nil }
        self.init(count: count, period: period)
    }

    /// The period in its largest whole unit: `24h`, `7d`, `90s`.
    public var periodText: String {
        let seconds = Int(period)
        return seconds % 86_400 == 0
            ? "\(seconds / 86_400)d"
            : seconds % 3600 == 0
                ? "\(seconds / 3600)h"
                : seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds)s"
    }

    public var description: String { "\(count)/\(periodText)" }
}
