import RichPushCore

/// Reads the body of `/api/me/stream` as it arrives: parses server-sent events, notes every byte for the heartbeat
/// watchdog and passes typed events on. An answer other than 200 is collected as an error body instead.
final class EventSink: BodySink {
    /// The HTTP status of the response whose body this is; libcurl knows it before the first body byte.
    private let responseStatus: () -> Int
    private let deliver: (StreamNotice) -> Void
    private let connected: () -> Void
    private var parser = ServerSentEventParser()
    private(set) var liveness: Liveness
    private(set) var status: Int?
    private(set) var errorBody: [UInt8] = []
    private(set) var eventCount = 0
    private(set) var heartbeatCount = 0
    /// The cursor of the last event received, to resume after it.
    private(set) var lastCursor: Int64?

    /// - Parameters:
    ///   - connected: called once, when the gateway accepted the stream and before the first event.
    init(timeout: Duration, responseStatus: @escaping () -> Int, connected: @escaping () -> Void = {}, deliver: @escaping (StreamNotice) -> Void) {
        self.responseStatus = responseStatus
        self.connected = connected
        self.deliver = deliver
        self.liveness = Liveness(timeout: timeout)
    }

    override func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        liveness.noteActivity()
        if status == nil {
            status = responseStatus()
            if status == 200 { connected() }
        }
        guard status == 200 else {
            errorBody += bytes.prefix(max(0, 4096 - errorBody.count))
            return true
        }
        let comments = parser.commentCount
        for event in parser.feed(bytes) {
            guard let id = event.id, let cursor = Int64(id) else { continue }
            lastCursor = cursor
            eventCount += 1
            if let typed = StreamEvent(event) {
                deliver(.event(typed))
            } else {
                deliver(.unknown(cursor: cursor))
            }
        }
        heartbeatCount += parser.commentCount - comments
        return true
    }
}
