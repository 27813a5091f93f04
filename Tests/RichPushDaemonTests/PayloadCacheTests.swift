import Glibc
import Testing

@testable import RichPushDaemon

@Suite("The payload cache")
struct PayloadCacheTests {
    @Test func theOldestPayloadsGoWhenTheCacheIsFull() throws {
        let directory = try TemporaryDirectory()
        let cache = PayloadCache(directory: directory.path + "/richpush", limit: 2500)
        let kilobyte = [UInt8](repeating: 7, count: 1000)
        for id in 1...3 {
            let path = try cache.store(kilobyte, richId: Int64(id), extension: "png")
            // Stored a second apart in 2001, so the order of their times does not depend on the clock's resolution.
            setModificationTime(of: path, to: 1_000_000_000 + id)
        }
        #expect(cache.entries().map(\.path) == [2, 3].map { cache.path(richId: $0, extension: "png") })
        _ = try cache.store(kilobyte, richId: 4, extension: "txt")
        #expect(cache.entries().map(\.path) == [cache.path(richId: 3, extension: "png"), cache.path(richId: 4, extension: "txt")])
    }

    @Test func aPayloadLargerThanTheWholeCacheIsStillKeptUntilTheNextOne() throws {
        let directory = try TemporaryDirectory()
        let cache = PayloadCache(directory: directory.path, limit: 100)
        let path = try cache.store([UInt8](repeating: 1, count: 500), richId: 9, extension: "png")
        #expect(try FileIO.readBytes(path)?.count == 500)
    }

    @Test func aRecalledNotificationLeavesNoPayloadBehind() throws {
        let directory = try TemporaryDirectory()
        let cache = PayloadCache(directory: directory.path, limit: 1 << 20)
        _ = try cache.store([1, 2, 3], richId: 5, extension: "png")
        cache.remove(richId: 5)
        #expect(cache.entries().isEmpty)
    }

    @Test func filesThatAreNotPayloadsAreLeftAlone() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("notes.txt", "mine")
        let cache = PayloadCache(directory: directory.path, limit: 1 << 20)
        #expect(cache.entries().isEmpty)
    }

    private func setModificationTime(of path: String, to seconds: Int) {
        let times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, times, 0) == 0)
    }
}
