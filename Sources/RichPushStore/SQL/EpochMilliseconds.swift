public import Foundation
public import RichPushCore

/// Times are stored as integer milliseconds since 1970 on every engine.
func EpochMilliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
}

func dateFromMilliseconds(_ milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000)
}
