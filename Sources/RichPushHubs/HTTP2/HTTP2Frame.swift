import NIOCore
import NIOHTTP2

/// The frame types of RFC 9113 §6 that a client sends or acts on; others are read past.
enum HTTP2FrameType: UInt8 {
    case data = 0x0
    case headers = 0x1
    case priority = 0x2
    case rstStream = 0x3
    case settings = 0x4
    case pushPromise = 0x5
    case ping = 0x6
    case goAway = 0x7
    case windowUpdate = 0x8
    case continuation = 0x9
}

/// Frame flags; each applies to the frame types RFC 9113 names for it.
enum HTTP2FrameFlag {
    static let endStream: UInt8 = 0x1
    static let ack: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
    static let padded: UInt8 = 0x8
    static let priority: UInt8 = 0x20
}

/// The SETTINGS parameters of RFC 9113 §6.5.2.
enum HTTP2Setting {
    static let headerTableSize: UInt16 = 0x1
    static let enablePush: UInt16 = 0x2
    static let maxConcurrentStreams: UInt16 = 0x3
    static let initialWindowSize: UInt16 = 0x4
    static let maxFrameSize: UInt16 = 0x5
    static let maxHeaderListSize: UInt16 = 0x6
}

/// One frame read off the connection: its 9-byte header and its payload.
struct HTTP2InboundFrame {
    var type: UInt8
    var flags: UInt8
    var stream: Int
    var payload: ByteBuffer

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// What makes the whole connection unusable (RFC 9113 §5.4.1): it is answered with GOAWAY carrying `code`.
package struct HTTP2ConnectionError: Error, CustomStringConvertible {
    var code: HTTP2ErrorCode
    var reason: String

    package var description: String { "HTTP/2 connection error \(code): \(reason)" }
}

/// Every HTTP/2 connection starts with these bytes from the client (RFC 9113 §3.4).
let http2ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

extension ByteBuffer {
    /// Reads the next whole frame, or nil when its bytes have not all arrived yet.
    mutating func readHTTP2Frame(maximumLength: Int) throws(HTTP2ConnectionError) -> HTTP2InboundFrame? {
        guard readableBytes >= 9,
            let high = getInteger(at: readerIndex, as: UInt8.self),
            let low = getInteger(at: readerIndex + 1, as: UInt16.self),
            let type = getInteger(at: readerIndex + 3, as: UInt8.self),
            let flags = getInteger(at: readerIndex + 4, as: UInt8.self),
            let stream = getInteger(at: readerIndex + 5, as: UInt32.self)
        else { return nil }
        let length = Int(high) << 16 | Int(low)
        guard length <= maximumLength else {
            throw HTTP2ConnectionError(code: .frameSizeError, reason: "a frame of \(length) bytes, more than the \(maximumLength) allowed")
        }
        guard readableBytes >= 9 + length else { return nil }
        moveReaderIndex(forwardBy: 9)
        let payload = readSlice(length: length)!
        return HTTP2InboundFrame(type: type, flags: flags, stream: Int(stream & 0x7FFF_FFFF), payload: payload)
    }

    mutating func writeHTTP2FrameHeader(length: Int, type: HTTP2FrameType, flags: UInt8 = 0, stream: Int) {
        writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        writeInteger(UInt16(truncatingIfNeeded: length))
        writeInteger(type.rawValue)
        writeInteger(flags)
        writeInteger(UInt32(stream))
    }

    mutating func writeHTTP2Settings(_ settings: [(UInt16, UInt32)]) {
        writeHTTP2FrameHeader(length: 6 * settings.count, type: .settings, stream: 0)
        for (parameter, value) in settings {
            writeInteger(parameter)
            writeInteger(value)
        }
    }

    mutating func writeHTTP2WindowUpdate(stream: Int, increment: Int) {
        writeHTTP2FrameHeader(length: 4, type: .windowUpdate, stream: stream)
        writeInteger(UInt32(increment))
    }

    mutating func writeHTTP2ResetStream(_ stream: Int, code: HTTP2ErrorCode) {
        writeHTTP2FrameHeader(length: 4, type: .rstStream, stream: stream)
        writeInteger(UInt32(code.networkCode))
    }

    mutating func writeHTTP2GoAway(lastStream: Int, code: HTTP2ErrorCode) {
        writeHTTP2FrameHeader(length: 8, type: .goAway, stream: 0)
        writeInteger(UInt32(lastStream))
        writeInteger(UInt32(code.networkCode))
    }

    /// Strips the padding of a DATA or HEADERS payload (RFC 9113 §6.1), and for HEADERS its priority fields.
    mutating func removeHTTP2Padding(of frame: HTTP2InboundFrame, priorityBytes: Int = 0) throws(HTTP2ConnectionError) {
        var padding = 0
        if frame.has(HTTP2FrameFlag.padded) {
            guard let length = readInteger(as: UInt8.self) else {
                throw HTTP2ConnectionError(code: .frameSizeError, reason: "a padded frame without its pad length")
            }
            padding = Int(length)
        }
        guard readableBytes >= padding + priorityBytes else {
            throw HTTP2ConnectionError(code: .protocolError, reason: "padding longer than its frame")
        }
        moveReaderIndex(forwardBy: priorityBytes)
        moveWriterIndex(to: writerIndex - padding)
    }
}
