import Foundation
import RichPushStore
import Testing

@Suite("The payload egress processes share")
struct PayloadEgressStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func eachProcessLearnsWhatTheOthersServeUntilOneStopsTelling() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            let (a, b) = (stores[0].payloadEgress, stores[1].payloadEgress)
            let heard = [
                try await a.exchange(process: "a", bytesPerSecond: 300, now: start, freshFor: 3),
                try await b.exchange(process: "b", bytesPerSecond: 500, now: start + 0.5, freshFor: 3),
                try await a.exchange(process: "a", bytesPerSecond: 100, now: start + 1, freshFor: 3),
                // b has said nothing for more than three seconds.
                try await a.exchange(process: "a", bytesPerSecond: 100, now: start + 4, freshFor: 3),
            ]
            #expect(heard == [0, 300, 500, 0])
        }
    }
}
