/// One dispatched server-sent event.
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String
    public var data: String

    public init(id: String? = nil, event: String = "message", data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// An incremental parser of `text/event-stream` as the WHATWG HTML standard defines it.
///
/// Feed it bytes as they arrive, in chunks of any size; it returns the events completed by each chunk.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var lastByteWasCarriageReturn = false
    private var eventName = ""
    private var dataLines: [String] = []
    private var hasData = false
    private var pendingId: String?
    /// The id of the last dispatched event (the stream's `lastEventId`), kept across events as the standard says.
    public private(set) var lastEventId: String?
    /// The server's `retry:` advice in milliseconds, if it gave one.
    public private(set) var retryMilliseconds: Int?
    /// How many comment lines (heartbeats) arrived.
    public private(set) var commentCount = 0

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") && lastByteWasCarriageReturn {
                lastByteWasCarriageReturn = false
                continue
            }
            lastByteWasCarriageReturn = byte == UInt8(ascii: "\r")
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if let event = processLine() { events.append(event) }
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        return events
    }

    private mutating func processLine() -> ServerSentEvent? {
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") {
            commentCount += 1
            return nil
        }
        let field: String
        let value: Substring
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: line[..<colon], as: UTF8.self)
            var rest = line[(colon + 1)...]
            if rest.first == UInt8(ascii: " ") { rest = rest.dropFirst() }
            value = Substring(String(decoding: rest, as: UTF8.self))
        } else {
            field = String(decoding: line, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event": eventName = String(value)
        case "data":
            dataLines.append(String(value))
            hasData = true
        case "id" where !value.contains("\0"): pendingId = String(value)
        case "retry": if let ms = Int(value), ms >= 0 { retryMilliseconds = ms }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        if let pendingId { lastEventId = pendingId }
        pendingId = nil
        defer {
            eventName = ""
            dataLines = []
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(id: lastEventId, event: eventName.isEmpty ? "message" : eventName, data: dataLines.joined(separator: "\n"))
    }
}
