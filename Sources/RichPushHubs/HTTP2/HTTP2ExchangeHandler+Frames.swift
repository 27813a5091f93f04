import NIOCore
import NIOHTTP1
import NIOHTTP2

/// The server's frames: answers to streams, and the connection's settings, windows, pings and GOAWAY.
extension HTTP2ExchangeHandler {
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if inbound.readableBytes == 0 {
            inbound = bytes
        } else {
            inbound.writeBuffer(&bytes)
        }
        do {
            while self.context != nil, let frame = try inbound.readHTTP2Frame(maximumLength: Self.maximumInboundFrame) {
                try process(frame)
            }
            inbound.discardReadBytes()
        } catch {
            abandon(error)
        }
    }

    private func process(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        if let continuing, frame.type != HTTP2FrameType.continuation.rawValue || frame.stream != continuing.stream {
            throw HTTP2ConnectionError(code: .protocolError, reason: "a header block of stream \(continuing.stream) left unfinished")
        }
        switch HTTP2FrameType(rawValue: frame.type) {
        case .data: try receiveData(frame)
        case .headers: try receiveHeaders(frame)
        case .continuation: try receiveContinuation(frame)
        case .rstStream: try receiveReset(frame)
        case .settings: try receiveSettings(frame)
        case .ping: try receivePing(frame)
        case .goAway: try receiveGoAway(frame)
        case .windowUpdate: try receiveWindowUpdate(frame)
        case .pushPromise: throw HTTP2ConnectionError(code: .protocolError, reason: "PUSH_PROMISE although push is disabled")
        // PRIORITY is advice this client has no use for; unknown frame types are to be ignored (RFC 9113 §5.5).
        case .priority, nil: break
        }
    }

    private func receiveData(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.stream != 0 else { throw HTTP2ConnectionError(code: .protocolError, reason: "DATA on stream 0") }
        // Padding counts against the windows as much as data does.
        let flowControlled = frame.payload.readableBytes
        receivedSinceWindowUpdate += flowControlled
        if receivedSinceWindowUpdate >= Self.receiveWindow / 2 {
            outbound.writeHTTP2WindowUpdate(stream: 0, increment: receivedSinceWindowUpdate)
            receivedSinceWindowUpdate = 0
            scheduleFlush()
        }
        var payload = frame.payload
        try payload.removeHTTP2Padding(of: frame)
        guard var exchange = exchanges[frame.stream], !exchange.answered else { return }
        exchange.receivedSinceWindowUpdate += flowControlled
        if exchange.body.readableBytes + payload.readableBytes > Self.maximumAnswerBytes {
            fail(stream: frame.stream, with: HTTP2TransportError.streamReset(.cancel))
            outbound.writeHTTP2ResetStream(frame.stream, code: .cancel)
            scheduleFlush()
            return
        }
        exchange.body.writeBuffer(&payload)
        if exchange.receivedSinceWindowUpdate >= Self.receiveWindow / 2, !frame.has(HTTP2FrameFlag.endStream) {
            outbound.writeHTTP2WindowUpdate(stream: frame.stream, increment: exchange.receivedSinceWindowUpdate)
            exchange.receivedSinceWindowUpdate = 0
            scheduleFlush()
        }
        exchanges[frame.stream] = exchange
        if frame.has(HTTP2FrameFlag.endStream) { complete(stream: frame.stream) }
    }

    private func receiveHeaders(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.stream != 0 else { throw HTTP2ConnectionError(code: .protocolError, reason: "HEADERS on stream 0") }
        var block = frame.payload
        try block.removeHTTP2Padding(of: frame, priorityBytes: frame.has(HTTP2FrameFlag.priority) ? 5 : 0)
        let endStream = frame.has(HTTP2FrameFlag.endStream)
        if frame.has(HTTP2FrameFlag.endHeaders) {
            try receiveHeaderBlock(&block, endStream: endStream, stream: frame.stream)
        } else {
            continuing = (frame.stream, endStream, block)
        }
    }

    private func receiveContinuation(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard case (let stream, let endStream, var block)? = continuing else {
            throw HTTP2ConnectionError(code: .protocolError, reason: "CONTINUATION without a header block to continue")
        }
        var fragment = frame.payload
        guard block.readableBytes + fragment.readableBytes <= decoder.maximumHeaderListSize * 2 else {
            throw HTTP2ConnectionError(code: .enhanceYourCalm, reason: "a header block larger than the client accepts")
        }
        block.writeBuffer(&fragment)
        if frame.has(HTTP2FrameFlag.endHeaders) {
            continuing = nil
            try receiveHeaderBlock(&block, endStream: endStream, stream: stream)
        } else {
            continuing = (stream, endStream, block)
        }
    }

    /// Decodes every header block, even of a stream no longer wanted: the decoder's table follows them all.
    private func receiveHeaderBlock(_ block: inout ByteBuffer, endStream: Bool, stream id: Int) throws(HTTP2ConnectionError) {
        let known = exchanges[id]?.status
        let headers = try decoder.decode(&block, keep: known.map { !(200..<300).contains($0) } ?? true)
        guard var exchange = exchanges[id], !exchange.answered else { return }
        if exchange.status == nil {
            guard let status = headers.status else {
                fail(stream: id, with: HTTP2TransportError.streamReset(.protocolError))
                return
            }
            // Informational answers (100 Continue) come before the real one.
            if status < 200 { return }
            exchange.status = status
        }
        if !headers.fields.isEmpty {
            // Taken as they came: HTTPHeaders.add(name:value:) traps on a name that is not ASCII, which a server may send.
            exchange.headers.add(contentsOf: HTTPHeaders(headers.fields.map { ($0.name, $0.value) }))
        }
        exchanges[id] = exchange
        if endStream { complete(stream: id) }
    }

    private func receiveReset(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.payload.readableBytes == 4, let code = frame.payload.getInteger(at: frame.payload.readerIndex, as: UInt32.self) else {
            throw HTTP2ConnectionError(code: .frameSizeError, reason: "RST_STREAM of \(frame.payload.readableBytes) bytes")
        }
        let error = HTTP2ErrorCode(networkCode: Int(code))
        fail(stream: frame.stream, with: error == .refusedStream ? HTTP2TransportError.notProcessed : HTTP2TransportError.streamReset(error))
    }

    private func receiveSettings(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.stream == 0 else { throw HTTP2ConnectionError(code: .protocolError, reason: "SETTINGS on a stream") }
        if frame.has(HTTP2FrameFlag.ack) {
            guard frame.payload.readableBytes == 0 else { throw HTTP2ConnectionError(code: .frameSizeError, reason: "a SETTINGS ACK with a payload") }
            return
        }
        guard frame.payload.readableBytes % 6 == 0 else {
            throw HTTP2ConnectionError(code: .frameSizeError, reason: "SETTINGS of \(frame.payload.readableBytes) bytes")
        }
        var payload = frame.payload
        let assumed = health.streamLimit
        while let parameter = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            try apply(parameter, Int(value))
        }
        // Fewer streams than the session counted on when it shared requests out (a frame may name the setting twice,
        // only the last counts): what waits beyond them would wait a round trip per stream, so the session shares
        // it out again, over connections with room.
        if health.streamLimit < assumed { giveBackWaiting(beyond: health.streamLimit) }
        outbound.writeHTTP2FrameHeader(length: 0, type: .settings, flags: HTTP2FrameFlag.ack, stream: 0)
        peerSettingsReceived = true
        scheduleFlush()
        resumeBlocked()
        startWaiting()
    }

    private func apply(_ parameter: UInt16, _ value: Int) throws(HTTP2ConnectionError) {
        switch parameter {
        case HTTP2Setting.headerTableSize:
            encoder.setMaximumTableSize(value)
        case HTTP2Setting.maxConcurrentStreams:
            peerMaximumConcurrentStreams = value
            health.allow(value, own: maximumConcurrentStreams)
        case HTTP2Setting.initialWindowSize:
            guard value <= Self.largestWindow else {
                throw HTTP2ConnectionError(code: .flowControlError, reason: "an initial window of \(value)")
            }
            let change = value - peerInitialWindow
            peerInitialWindow = value
            for id in exchanges.keys {
                exchanges[id]!.sendWindow += change
                guard exchanges[id]!.sendWindow <= Self.largestWindow else {
                    throw HTTP2ConnectionError(code: .flowControlError, reason: "a stream window past 2^31-1")
                }
            }
        case HTTP2Setting.maxFrameSize:
            guard (16_384...16_777_215).contains(value) else {
                throw HTTP2ConnectionError(code: .protocolError, reason: "a maximum frame size of \(value)")
            }
            peerMaximumFrame = value
        default:
            // ENABLE_PUSH and MAX_HEADER_LIST_SIZE ask nothing of a client's requests this small; unknown parameters
            // are to be ignored.
            break
        }
    }

    private func receivePing(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.stream == 0 else { throw HTTP2ConnectionError(code: .protocolError, reason: "PING on a stream") }
        guard frame.payload.readableBytes == 8 else { throw HTTP2ConnectionError(code: .frameSizeError, reason: "a PING that is not 8 bytes") }
        guard !frame.has(HTTP2FrameFlag.ack) else { return }
        var opaque = frame.payload
        outbound.writeHTTP2FrameHeader(length: 8, type: .ping, flags: HTTP2FrameFlag.ack, stream: 0)
        outbound.writeBuffer(&opaque)
        scheduleFlush()
    }

    private func receiveGoAway(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.stream == 0, let last = frame.payload.getInteger(at: frame.payload.readerIndex, as: UInt32.self) else {
            throw HTTP2ConnectionError(code: .protocolError, reason: "a malformed GOAWAY")
        }
        health.retire()
        let lastProcessed = Int(last & 0x7FFF_FFFF)
        for stream in exchanges.keys where stream > lastProcessed { fail(stream: stream, with: HTTP2TransportError.notProcessed) }
        startWaiting()
    }

    private func receiveWindowUpdate(_ frame: HTTP2InboundFrame) throws(HTTP2ConnectionError) {
        guard frame.payload.readableBytes == 4, let raw = frame.payload.getInteger(at: frame.payload.readerIndex, as: UInt32.self) else {
            throw HTTP2ConnectionError(code: .frameSizeError, reason: "WINDOW_UPDATE of \(frame.payload.readableBytes) bytes")
        }
        let increment = Int(raw & 0x7FFF_FFFF)
        if frame.stream == 0 {
            guard increment > 0 else { throw HTTP2ConnectionError(code: .protocolError, reason: "a connection WINDOW_UPDATE of 0") }
            connectionSendWindow += increment
            guard connectionSendWindow <= Self.largestWindow else {
                throw HTTP2ConnectionError(code: .flowControlError, reason: "a connection window past 2^31-1")
            }
        } else if var exchange = exchanges[frame.stream], increment > 0 {
            exchange.sendWindow += increment
            exchanges[frame.stream] = exchange
        }
        resumeBlocked()
    }
}
