import Glibc
import RichPushCore
import Testing

@testable import RichPushDaemon

@Suite("What an alert shows, server by server")
struct AlertFormattingTests {
    static let dunst: Set<String> = ["actions", "body", "body-hyperlinks", "icon-static", "body-markup"]
    static let link = Alert(
        richId: 3, richType: .url, summary: "example.com", message: "Sale <today> & tomorrow", detail: "https://example.com/?a=1&b=2",
        link: "https://example.com/?a=1&b=2", openTarget: "https://example.com/?a=1&b=2")

    @Test func aServerWithActionsGetsOpenAndMore() {
        let alert = Alert(richId: 1, richType: .img, summary: "New image", message: "Hi", imageFile: "/c/1.png", openTarget: "/c/1.png")
        #expect(DesktopNotifier.actions(for: alert, capabilities: Self.dunst) == ["default", "Open", "more", "More"])
    }

    @Test func anAlertWithNothingToOpenHasNoMoreButton() {
        let alert = Alert(richId: 1, richType: .img, summary: "New image", message: "Hi")
        #expect(DesktopNotifier.actions(for: alert, capabilities: Self.dunst) == ["default", "Open"])
    }

    @Test func aServerWithoutActionsGetsNoButtons() {
        #expect(DesktopNotifier.actions(for: Self.link, capabilities: ["body", "body-markup"]).isEmpty)
    }

    @Test func aMarkupServerGetsTheMessageEscapedAndTheLinkAsALink() {
        #expect(
            DesktopNotifier.body(for: Self.link, capabilities: Self.dunst)
                == "Sale &lt;today&gt; &amp; tomorrow\n<a href=\"https://example.com/?a=1&amp;b=2\">https://example.com/?a=1&amp;b=2</a>")
    }

    @Test func aPlainTextServerGetsTheTextAsItIs() {
        #expect(DesktopNotifier.body(for: Self.link, capabilities: ["body"]) == "Sale <today> & tomorrow\nhttps://example.com/?a=1&b=2")
    }

    @Test func aServerWithoutBodiesGetsOnlyTheSummary() {
        #expect(DesktopNotifier.body(for: Self.link, capabilities: ["actions"]).isEmpty)
    }

    @Test func theConsoleShowsOneReadableLinePerAlert() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/out"
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
        let console = ConsolePresenter(output: descriptor)
        let alert = Alert(
            richId: 42, richType: .img, summary: "New image", message: "Check this\nimage out!", imageFile: "/c/42.png", openTarget: "/c/42.png")
        var answer: Result<UInt32?, AlertFailure>?
        console.show(alert) { answer = $0 }
        #expect(try answer?.get() == .some(nil))
        close(descriptor)
        #expect(try FileIO.read(path) == "richpush 42 [img] New image: Check this image out! | image /c/42.png\n")
    }
}
