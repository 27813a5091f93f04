#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    import Foundation
#endif

/// RFC 3339 times, as every `deliverAt`, `expiresAt` and `createdAt` travels.
///
/// Written by hand because the grammar is small and Foundation's ISO 8601 parsers differ between platforms in
/// what they accept (zone forms, fraction lengths).
public enum Timestamp {
    /// Parses `2026-11-22T10:00:00Z`, `2026-11-22T10:00:00.250+01:00` and the like; a zone is required.
    public static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip(oneOf: "Tt "),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            guard let digits = scanner.fractionDigits() else { return nil }
            fraction = digits
        }
        let offset: Int
        if scanner.skip(oneOf: "Zz") {
            offset = 0
        } else if let sign = scanner.sign(), let zoneHour = scanner.number(digits: 2), scanner.skip(":"),
            let zoneMinute = scanner.number(digits: 2), zoneHour < 24, zoneMinute < 60
        {
            offset = sign * (zoneHour * 3600 + zoneMinute * 60)
        } else {
            return nil
        }
        guard scanner.isAtEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Parses a wall-clock time without a zone, `2026-12-01T09:00:00` (seconds optional); nil for anything else,
    /// a time with a zone included.
    public static func parseLocal(_ text: String) -> LocalTime? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip(oneOf: "Tt "),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2)
        else { return nil }
        var second = 0
        if scanner.skip(":") {
            guard let seconds = scanner.number(digits: 2) else { return nil }
            second = seconds
        }
        guard scanner.isAtEnd, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        return LocalTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Formats in UTC with milliseconds, e.g. `2026-11-22T10:00:00.250Z`.
    public static func format(_ date: Date) -> String {
        let totalMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let milliseconds = ((totalMilliseconds % 1000) + 1000) % 1000
        let seconds = (totalMilliseconds - milliseconds) / 1000
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let date = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
        let time = "\(padded(secondOfDay / 3600, 2)):\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2))"
        return "\(date)T\(time).\(padded(milliseconds, 3))Z"
    }

    /// `value` in decimal, zero-padded to `width` digits (`String(format:)` needs all of Foundation).
    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's `days_from_civil`: days since 1970-01-01 of a proleptic Gregorian date.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + digits] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    mutating func fractionDigits() -> Double? {
        var value = 0.0
        var scale = 0.1
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value += Double(bytes[index] - UInt8(ascii: "0")) * scale
            scale /= 10
            index += 1
        }
        return index > start && index - start <= 9 ? value : nil
    }

    mutating func skip(_ character: Character) -> Bool {
        skip(oneOf: String(character))
    }

    mutating func skip(oneOf characters: String) -> Bool {
        guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}

/// A time on the wall clock, in whatever zone a device is: `deliverAtLocal`.
public struct LocalTime: Sendable, Hashable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
    }
}
