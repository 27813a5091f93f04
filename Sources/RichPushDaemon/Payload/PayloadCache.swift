import Glibc

/// `$XDG_CACHE_HOME/richpush`: the payloads fetched, one file per notification (`42.png`, `43.txt`), at most
/// `limit` bytes in all; the files written longest ago go first.
final class PayloadCache {
    let directory: String
    let limit: Int
    /// The files and sizes in the directory, oldest first; read once, then kept up to date here, so storing a
    /// payload never lists the directory.
    private var index: [(path: String, size: Int)]?

    init(directory: String, limit: Int) {
        self.directory = directory
        self.limit = limit
    }

    func path(richId: Int64, extension fileExtension: String) -> String {
        "\(directory)/\(richId).\(fileExtension)"
    }

    /// Stores a payload and evicts older ones over the limit; returns the file's path.
    func store(_ bytes: [UInt8], richId: Int64, extension fileExtension: String) throws(FileError) -> String {
        try FileIO.createDirectories(directory)
        let path = path(richId: richId, extension: fileExtension)
        // Not synced: the sync would cost milliseconds on the way to every alert, and a lost cache file is refetched.
        try FileIO.writeAtomically(path, bytes: bytes, durable: false)
        var index = self.index ?? entries().map { ($0.path, $0.size) }
        index.removeAll { $0.path == path }
        index.append((path, bytes.count))
        var total = index.reduce(0) { $0 + $1.size }
        while total > limit, index.count > 1 {
            let oldest = index.removeFirst()
            FileIO.remove(oldest.path)
            total -= oldest.size
        }
        self.index = index
        return path
    }

    /// Removes the payloads of a recalled notification.
    func remove(richId: Int64) {
        for fileExtension in ["png", "txt"] {
            let path = path(richId: richId, extension: fileExtension)
            FileIO.remove(path)
            index?.removeAll { $0.path == path }
        }
    }

    /// The cached payload files in the directory, oldest first, with their sizes.
    func entries() -> [(path: String, size: Int, modified: Int)] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var entries: [(path: String, size: Int, modified: Int)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".png") || name.hasSuffix(".txt"), Int64(name.dropLast(4)) != nil else { continue }
            var info = stat()
            let path = directory + "/" + name
            guard stat(path, &info) == 0 else { continue }
            entries.append((path, Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)))
        }
        return entries.sorted { $0.modified < $1.modified }
    }
}
