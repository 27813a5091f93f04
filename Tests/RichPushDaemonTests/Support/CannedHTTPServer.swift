import Foundation
import Glibc
import Synchronization
import TestSupport

/// A loopback HTTP/1.1 server that answers each request from a table, for payload failures the real gateway cannot
/// be made to produce on demand (a corrupt image, a 401 in the middle of a run). One connection at a time.
final class CannedHTTPServer: Sendable {
    struct Answer: Sendable {
        var status: Int
        var headers: [String] = []
        var body: [UInt8] = []
    }

    let port: Int
    private let listener: Int32
    private let answers: @Sendable (String) -> Answer
    private let requests = Mutex<[(path: String, authorization: String?)]>([])
    private let stopped = Atomic<Bool>(false)

    init(_ answers: @escaping @Sendable (String) -> Answer) throws {
        self.answers = answers
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw TestFailure("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Paths and `Authorization` headers of the requests so far.
    var received: [(path: String, authorization: String?)] { requests.withLock { $0 } }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                request += buffer[..<count]
            }
            let lines = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n")
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let authorization = lines.first { $0.lowercased().hasPrefix("authorization:") }.map {
                String($0.dropFirst("authorization:".count)).trimmingCharacters(in: .whitespaces)
            }
            requests.withLock { $0.append((path, authorization)) }
            let answer = answers(path)
            var head = "HTTP/1.1 \(answer.status) Canned\r\nContent-Length: \(answer.body.count)\r\nConnection: close\r\n"
            for header in answer.headers { head += header + "\r\n" }
            let bytes = Array((head + "\r\n").utf8) + answer.body
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }
    }
}

extension Array where Element: Equatable {
    func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
