import RichPushCore
import Testing

@testable import RichPushDaemon

@Suite("Reading the direct stream")
struct StreamDecodingTests {
    final class Recorder: @unchecked Sendable {
        var notices: [StreamNotice] = []
    }

    func sink(status: Int = 200, into recorder: Recorder) -> EventSink {
        EventSink(timeout: .seconds(45), responseStatus: { status }) { recorder.notices.append($0) }
    }

    func feed(_ sink: EventSink, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { sink.receive($0) }
    }

    @Test func eventsSplitAcrossReadsArriveWholeAndInOrder() {
        let recorder = Recorder()
        let sink = sink(into: recorder)
        let wire =
            "retry: 2000\n\n"
            + StreamEvent(cursor: 7, body: .rich(richId: 42, richType: .img, richMessage: "Check this image out!")).serverSentEvent
            + StreamEvent(cursor: 8, body: .state(richId: 42, readState: .read, userActionState: .dismissed)).serverSentEvent
            + StreamEvent(cursor: 9, body: .deleted(richId: 42)).serverSentEvent
        for piece in wire.chunked(by: 5) { feed(sink, piece) }
        #expect(
            recorder.notices == [
                .event(StreamEvent(cursor: 7, body: .rich(richId: 42, richType: .img, richMessage: "Check this image out!"))),
                .event(StreamEvent(cursor: 8, body: .state(richId: 42, readState: .read, userActionState: .dismissed))),
                .event(StreamEvent(cursor: 9, body: .deleted(richId: 42))),
            ])
        #expect(sink.lastCursor == 9)
        #expect(sink.eventCount == 3)
    }

    @Test func heartbeatsAreCountedAndKeepTheStreamAlive() {
        let recorder = Recorder()
        let sink = sink(into: recorder)
        feed(sink, StreamEvent.heartbeat + StreamEvent.heartbeat)
        #expect(sink.heartbeatCount == 2)
        #expect(recorder.notices.isEmpty)
        #expect(!sink.liveness.isDead())
    }

    @Test func anEventOfAnUnknownKindOnlyMovesTheCursor() {
        let recorder = Recorder()
        let sink = sink(into: recorder)
        feed(sink, "id: 12\nevent: poll\ndata: {\"richId\":\"1\"}\n\n")
        #expect(recorder.notices == [.unknown(cursor: 12)])
        #expect(sink.lastCursor == 12)
    }

    @Test func anErrorAnswerIsKeptAsAnErrorNotParsedAsEvents() {
        let recorder = Recorder()
        let sink = sink(status: 404, into: recorder)
        feed(sink, "id: 1\nevent: deleted\ndata: {\"richId\":\"1\"}\n\n")
        #expect(recorder.notices.isEmpty)
        #expect(sink.status == 404)
        #expect(String(decoding: sink.errorBody, as: UTF8.self).hasPrefix("id: 1"))
    }
}

extension String {
    func chunked(by size: Int) -> [String] {
        var chunks: [String] = []
        var rest = Substring(self)
        while !rest.isEmpty {
            chunks.append(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return chunks
    }
}
