import Foundation
import RichPushCore
import Testing

@testable import RichPushDaemon

@Suite("Fetching payloads, and falling back when they fail")
struct PayloadResolverTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func resolver(_ server: CannedHTTPServer, imageSize: Int = 128) -> PayloadResolver {
        let gateway = GatewayClient(server: server.baseURL, credential: .password(username: "alice", password: "alice-password"), caFile: nil)
        return PayloadResolver(gateway: gateway, cache: PayloadCache(directory: directory.path, limit: 1 << 20), imageSize: imageSize)
    }

    @Test func anImageIsFetchedWithBasicAuthAsThisDeviceCachedWholeAndScaledForTheAlert() throws {
        let png = Array(try fixture("two-colors.png"))
        let server = try CannedHTTPServer { _ in .init(status: 200, headers: ["Content-Type: image/png"], body: png) }
        defer { server.stop() }
        let resolver = resolver(server, imageSize: 100)
        resolver.installationId = "alice-laptop"
        let (alert, problem) = resolver.alert(richId: 42, richType: .img, message: "Check this image out!")
        #expect(problem == nil)
        #expect(server.received.map(\.path) == ["/api/notifications/42?installationId=alice-laptop"])
        #expect(server.received.first?.authorization == "Basic " + Data("alice:alice-password".utf8).base64EncodedString())
        #expect(alert.message == "Check this image out!")
        #expect(alert.image?.width == 100)
        #expect(alert.image?.height == 67)
        let file = try #require(alert.imageFile)
        #expect(file == directory.path + "/42.png")
        #expect(try FileIO.readBytes(file) == png)
        #expect(alert.openTarget == file)
    }

    @Test(arguments: [
        (401, "the gateway refused the credentials (401)"),
        (404, "the gateway does not know it, or not for this user (404)"),
        (410, "it was recalled or has expired (410)"),
        (503, "the gateway answered 503"),
    ])
    func anErrorAnswerLeavesATextAlertAndOneSentenceToLog(status: Int, reason: String) throws {
        let server = try CannedHTTPServer { _ in .init(status: status) }
        defer { server.stop() }
        let (alert, problem) = resolver(server).alert(richId: 7, richType: .img, message: "Winter sale")
        #expect(alert == Alert(richId: 7, richType: .img, summary: "New image", message: "Winter sale"))
        #expect(problem == "notification 7 is shown without its img payload: \(reason)")
    }

    @Test(arguments: ["truncated.png", "bad-crc-idat.png", "not-png.jpg", "decompression-bomb.png"])
    func aCorruptImageLeavesATextAlert(name: String) throws {
        let bytes = Array(try fixture(name))
        let server = try CannedHTTPServer { _ in .init(status: 200, headers: ["Content-Type: image/png"], body: bytes) }
        defer { server.stop() }
        let (alert, problem) = resolver(server).alert(richId: 8, richType: .img, message: "Look")
        #expect(alert.image == nil && alert.imageFile == nil && alert.openTarget == nil)
        #expect(problem?.contains("the image is not a valid PNG") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/8.png"))
    }

    @Test func anUnreachableGatewayLeavesATextAlert() throws {
        let server = try CannedHTTPServer { _ in .init(status: 200) }
        server.stop()
        let (alert, problem) = resolver(server).alert(richId: 9, richType: .text, message: "Hello")
        #expect(alert.detail == nil)
        #expect(problem?.contains("the gateway is unreachable") == true)
    }

    @Test func aLinkPayloadBecomesALinkThatMoreOpens() throws {
        let server = try CannedHTTPServer { _ in .init(status: 302, headers: ["Location: https://shop.example.com/sale?id=3"]) }
        defer { server.stop() }
        let (alert, problem) = resolver(server).alert(richId: 3, richType: .url, message: "Winter sale")
        #expect(problem == nil)
        #expect(alert.summary == "shop.example.com")
        #expect(alert.link == "https://shop.example.com/sale?id=3")
        #expect(alert.openTarget == "https://shop.example.com/sale?id=3")
    }

    @Test func aLinkThatIsNotAWebLinkIsNeverOpened() throws {
        let server = try CannedHTTPServer { _ in .init(status: 302, headers: ["Location: file:///etc/passwd"]) }
        defer { server.stop() }
        let (alert, problem) = resolver(server).alert(richId: 3, richType: .url, message: "Winter sale")
        #expect(alert.openTarget == nil && alert.link == nil)
        #expect(problem?.contains("is not an http or https URL") == true)
    }

    @Test func aTextPayloadShowsItsBeginningAndMoreOpensAllOfIt() throws {
        let text = String(repeating: "All the small print. ", count: 40)
        let server = try CannedHTTPServer { _ in .init(status: 200, headers: ["Content-Type: text/plain"], body: Array(text.utf8)) }
        defer { server.stop() }
        let (alert, problem) = resolver(server).alert(richId: 5, richType: .text, message: "Terms changed")
        #expect(problem == nil)
        #expect(alert.detail == String(text.prefix(PayloadResolver.detailLength)) + "…")
        let file = try #require(alert.openTarget)
        #expect(try FileIO.read(file) == text)
    }
}
