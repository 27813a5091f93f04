import Foundation
import RichPushCore
import Testing

@Suite("RFC 3339 times")
struct TimestampTests {
    @Test func utcWithoutFractionParses() {
        #expect(Timestamp.parse("2026-11-22T10:00:00Z") == Date(timeIntervalSince1970: 1_795_341_600))
    }

    @Test func fractionalSecondsAreKept() {
        #expect(Timestamp.parse("2026-11-22T10:00:00.250Z") == Date(timeIntervalSince1970: 1_795_341_600.25))
    }

    @Test func offsetsAreAppliedToReachUTC() {
        #expect(Timestamp.parse("2026-11-22T11:30:00+01:30") == Timestamp.parse("2026-11-22T10:00:00Z"))
        #expect(Timestamp.parse("2026-11-22T05:00:00-05:00") == Timestamp.parse("2026-11-22T10:00:00Z"))
    }

    @Test(arguments: [
        "2026-11-22T10:00:00", "2026-11-22", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-22T24:00:00Z",
        "2026-11-22T10:00:00.Z", "2026-11-22T10:00:00+0100", "tomorrow", "2026-11-22T10:00:00Zjunk", "",
    ])
    func malformedTimesAreRejected(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func leapDaysAreValidOnlyInLeapYears() {
        #expect(Timestamp.parse("2028-02-29T00:00:00Z") != nil)
        #expect(Timestamp.parse("2027-02-29T00:00:00Z") == nil)
        #expect(Timestamp.parse("2000-02-29T00:00:00Z") != nil)
        #expect(Timestamp.parse("1900-02-29T00:00:00Z") == nil)
    }

    @Test func formattingWritesUTCWithMilliseconds() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_795_341_600.25)) == "2026-11-22T10:00:00.250Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test func formattedTimesParseBackToTheSameMillisecond() {
        for seconds in [0.0, 951_782_400.5, 1_795_341_600.999, 4_102_444_800] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(Timestamp.parse(Timestamp.format(date)) == date)
        }
    }
}
