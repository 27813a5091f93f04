public import Foundation

/// A small tmpfs of the test's own that a file of filler nearly fills: a disk that is full for a store written on it,
/// until ``freeSpace()`` removes the filler.
public final class FillableDisk: Sendable {
    public let mountPoint: URL
    private var filler: URL { mountPoint.appendingPathComponent("filler") }

    private init(mountPoint: URL) {
        self.mountPoint = mountPoint
    }

    /// Mounts a tmpfs of `size` bytes in a temporary directory.
    public static func mount(size: Int = 8 * 1024 * 1024) async throws -> FillableDisk {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let mounted = try await SpawnedProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mountPoint.path])
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(at: mountPoint)
            throw TestFailure("a small tmpfs is needed to fill a disk (the tests mount one as root): \(mounted.output)")
        }
        return FillableDisk(mountPoint: mountPoint)
    }

    /// Fills the disk but for `room` bytes.
    public func fill(leaving room: Int) throws {
        let free = try FileManager.default.attributesOfFileSystem(forPath: mountPoint.path)[.systemFreeSize] as? Int ?? 0
        try Data(count: max(0, free - room)).write(to: filler)
    }

    public func freeSpace() throws {
        try FileManager.default.removeItem(at: filler)
    }

    public func unmount() async {
        _ = try? await SpawnedProcess.run("/bin/umount", ["-l", mountPoint.path])
        try? FileManager.default.removeItem(at: mountPoint)
    }

    /// Runs `body` with a disk mounted for it, unmounted afterwards however `body` ends.
    public static func with<T>(size: Int = 8 * 1024 * 1024, _ body: (FillableDisk) async throws -> T) async throws -> T {
        let disk = try await mount(size: size)
        do {
            let result = try await body(disk)
            await disk.unmount()
            return result
        } catch {
            await disk.unmount()
            throw error
        }
    }
}
