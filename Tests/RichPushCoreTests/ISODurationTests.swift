import RichPushCore
import Testing

@Suite("ISO 8601 durations")
struct ISODurationTests {
    @Test(arguments: [("PT10M", 600.0), ("PT1H30M", 5400), ("P1D", 86_400), ("PT90S", 90), ("pt1.5s", 1.5), ("P1W", 604_800), ("PT24H", 86_400)])
    func aDurationIsReadAsItsSeconds(_ text: String, _ seconds: Double) {
        #expect(ISODuration.seconds(in: text) == seconds)
    }

    @Test(arguments: ["", "P", "PT", "10M", "P1M", "P1Y", "PT1.5M", "PT10", "P1DT", "PTM", "PT1H1H2", "P-1D"])
    func aTextThatIsNoDayTimeDurationIsRefused(_ text: String) {
        #expect(ISODuration.seconds(in: text) == nil)
    }

    @Test func secondsAreWrittenInHoursMinutesAndSeconds() {
        #expect(ISODuration.text(ofSeconds: 600) == "PT10M")
        #expect(ISODuration.text(ofSeconds: 5400) == "PT1H30M")
        #expect(ISODuration.text(ofSeconds: 86_400) == "PT24H")
        #expect(ISODuration.text(ofSeconds: 61) == "PT1M1S")
        #expect(ISODuration.text(ofSeconds: 0) == "PT0S")
    }
}
