import Foundation
import TestSupport

/// A PNG of noise, 2.4 MB that no compression shrinks: more than the room a full disk of the tests leaves.
func noisePNG() async throws -> Data {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-noise-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: file) }
    let script = """
        import os, struct, sys, zlib
        def chunk(kind, data):
            return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
        width, height = 1024, 768
        rows = b''.join(b'\\x00' + os.urandom(width * 3) for _ in range(height))
        png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0))
        png += chunk(b'IDAT', zlib.compress(rows, 0)) + chunk(b'IEND', b'')
        open(sys.argv[1], 'wb').write(png)
        """
    let made = try await SpawnedProcess.run("/usr/bin/env", ["python3", "-c", script, file.path])
    guard made.status == 0 else { throw TestFailure("python3 could not write the PNG: \(made.output)") }
    return try Data(contentsOf: file)
}
