import Testing

@testable import RichPushStore

/// A PostgreSQL pool's run that never ends, as PostgresNIO's has been seen to do after closing every connection,
/// must not hold the engine's close, and with it a test process or a gateway stopping on SIGTERM.
@Suite("Closing the PostgreSQL engine")
struct PostgresEngineCloseTests {
    @Test func aRunThatNeverEndsIsLeftOnceTheLimitPasses() async {
        let neverEnding = Task { await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in } }
        #expect(await PostgresPool.ended(neverEnding, within: .milliseconds(20)) == false)
    }

    @Test func aRunThatEndsIsWaitedFor() async {
        let ending = Task { await Task.yield() }
        #expect(await PostgresPool.ended(ending, within: .seconds(60)) == true)
    }
}
