import RichPushCore
import Testing

@Suite("Durations as people type them")
struct DurationTextTests {
    @Test(arguments: [("90s", 90.0), ("30m", 1800), ("12h", 43_200), ("1d", 86_400), ("2w", 1_209_600), ("1d12h", 129_600), ("1D", 86_400)])
    func aNumberWithAUnitIsThatManySeconds(text: String, seconds: Double) {
        #expect(DurationText.seconds(in: text) == seconds)
    }

    @Test(arguments: ["", "d", "5", "1x", "-1d", "1.5h", "1d 2"])
    func anythingElseIsNotADuration(text: String) {
        #expect(DurationText.seconds(in: text) == nil)
    }
}
