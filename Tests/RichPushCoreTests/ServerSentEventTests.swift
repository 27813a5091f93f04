import FoundationEssentials
import RichPushCore
import Testing

@Suite("Server-sent events")
struct ServerSentEventTests {
    @Test func eventsAreDispatchedAtBlankLines() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array("id: 7\nevent: rich\ndata: {\"a\":1}\n\n".utf8))
        #expect(events == [ServerSentEvent(id: "7", event: "rich", data: "{\"a\":1}")])
        #expect(parser.lastEventId == "7")
    }

    @Test func chunksMaySplitAnywhere() {
        let text = Array("id: 1\nevent: state\ndata: x\n\nid: 2\ndata: y\n\n".utf8)
        var whole = ServerSentEventParser()
        let expected = whole.feed(text)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in text { events += parser.feed([byte]) }
        #expect(events == expected)
        #expect(events.count == 2)
    }

    @Test func carriageReturnLineEndingsAreAccepted() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: a\r\n\r\ndata: b\r\rdata: c\n\n".utf8)).map(\.data) == ["a", "b", "c"])
    }

    @Test func commentsAreCountedNotDispatched() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array(StreamEvent.heartbeat.utf8)).isEmpty)
        #expect(parser.commentCount == 1)
    }

    @Test func multipleDataLinesAreJoinedWithNewlines() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: a\ndata: b\n\n".utf8)).first?.data == "a\nb")
    }

    @Test func theLastEventIdCarriesOverToEventsWithoutOne() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array("id: 4\ndata: a\n\ndata: b\n\n".utf8))
        #expect(events.map(\.id) == ["4", "4"])
    }

    @Test func retryAdviceIsRead() {
        var parser = ServerSentEventParser()
        _ = parser.feed(Array("retry: 2000\n\n".utf8))
        #expect(parser.retryMilliseconds == 2000)
    }

    @Test(arguments: [
        StreamEvent(cursor: 12, body: .rich(richId: 42, richType: .img, richMessage: "Check this image out!")),
        StreamEvent(cursor: 13, body: .state(richId: 42, readState: .read, userActionState: .dismissed)),
        StreamEvent(cursor: 14, body: .deleted(richId: 42)),
    ])
    func streamEventsSurviveTheWire(event: StreamEvent) {
        var parser = ServerSentEventParser()
        let parsed = parser.feed(Array(event.serverSentEvent.utf8))
        #expect(parsed.count == 1)
        #expect(StreamEvent(parsed[0]) == event)
    }

    @Test func richEventsCarryIdsAsStringsAsTheTutorialClientExpects() {
        let event = StreamEvent(cursor: 1, body: .rich(richId: 42, richType: .img, richMessage: "Hi"))
        #expect(event.data == #"{"richId":"42","richMessage":"Hi","richType":"img"}"#)
    }

    @Test func messagesWithNewlinesStayOnOneDataLine() {
        let event = StreamEvent(cursor: 1, body: .rich(richId: 1, richType: .text, richMessage: "two\nlines"))
        #expect(event.serverSentEvent.components(separatedBy: "\n").filter { $0.hasPrefix("data:") }.count == 1)
        var parser = ServerSentEventParser()
        #expect(StreamEvent(parser.feed(Array(event.serverSentEvent.utf8))[0]) == event)
    }
}
