import Foundation
import NIOCore
import NIOPosix

/// Sends `request` as raw bytes over TCP and returns what the server answers before it closes or 5 seconds pass.
///
/// For requests a well-behaved client cannot make: lying lengths, half-sent bodies.
func rawHTTP(port: Int, _ request: String) async throws -> String {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(bytes: Array(request.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })))
        var received = ByteBuffer()
        var headArrived = false
        let deadline = ContinuousClock.now + .seconds(5)
        for try await var chunk in inbound {
            received.writeBuffer(&chunk)
            // Only the newest bytes are searched, so answers of megabytes cost no more than their length.
            let tail = String(buffer: received.getSlice(at: max(0, received.writerIndex - 4096), length: min(4096, received.writerIndex))!)
            headArrived = headArrived || tail.contains("\r\n\r\n")
            if headArrived && tail.contains("\"error\"") || ContinuousClock.now > deadline { break }
        }
        return String(buffer: received)
    }
}

/// A TCP connection to the gateway that sends nothing until told to.
func openConnection(port: Int) async throws -> any Channel {
    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
}

/// Whether the server closes `connection` within `timeout`. A connection still open then is closed here: waiting for
/// a close future ignores cancellation, and the test would otherwise wait for it as long as the server keeps it.
func closes(_ connection: any Channel, within timeout: Duration) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            (try? await connection.closeFuture.get()) != nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        if !first { connection.close(promise: nil) }
        return first
    }
}

/// Sends `requests` on one connection, each once the answer before it has arrived whole (its head and the bytes its
/// `Content-Length` names), as a device fetches on a connection it keeps; the answers, each as text.
func rawHTTPInTurn(port: Int, _ requests: [String]) async throws -> [String] {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
    return try await channel.executeThenClose { inbound, outbound in
        var chunks = inbound.makeAsyncIterator()
        var received = ByteBuffer()
        var answers: [String] = []
        for request in requests {
            try await outbound.write(ByteBuffer(string: request))
            while true {
                if let length = wholeAnswerLength(in: received), let answer = received.readSlice(length: length) {
                    answers.append(String(buffer: answer))
                    break
                }
                guard var chunk = try await chunks.next() else { return answers }
                received.writeBuffer(&chunk)
            }
        }
        return answers
    }
}

/// The length of the answer `bytes` start with, once all of it is there.
private func wholeAnswerLength(in bytes: ByteBuffer) -> Int? {
    let view = bytes.readableBytesView
    guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
    let headLength = end.upperBound - view.startIndex
    let head = String(decoding: view[..<end.lowerBound], as: UTF8.self).lowercased()
    let bodyLength =
        head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    return bytes.readableBytes >= headLength + bodyLength ? headLength + bodyLength : nil
}
