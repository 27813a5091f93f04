import Foundation
import Synchronization

/// A test's own failure, in a sentence.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Asks `condition` every 50 ms until it holds or `timeout` passes, and says whether it held: for what another
/// process or thread brings about, never to let time pass (that is an injected clock's job). The bound only ends a
/// test that fails: at the start of the parallel suite, when every test starts at once on two cores, a gateway's
/// fan-out of 2,500 and a webhook's first message have taken longer than 10 s.
public func eventually(within timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// A TCP port on 127.0.0.1 that nobody listens on right now, for a process a test starts to bind: below the kernel's
/// range of ephemeral ports (32768 and up), where no outgoing connection takes it as its source port before that
/// process binds it (a port the kernel handed out was seen taken so, and the gateway then could not listen), and
/// never one this test process handed out before.
public func freePort() throws -> Int {
    for _ in 0..<1000 {
        let port = Int.random(in: 20_000..<32_768)
        guard handedOutPorts.withLock({ $0.insert(port).inserted }), canBind(port) else { continue }
        return port
    }
    throw TestFailure("no free port from 20000 to 32767 on 127.0.0.1")
}

private let handedOutPorts = Mutex<Set<Int>>([])

/// Whether a listener could bind `port` on 127.0.0.1 now, as a server binds: with `SO_REUSEADDR`.
private func canBind(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var reuse: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}
