import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import RichPushCore
import RichPushImaging
import RichPushServer
import Testing

@Suite("Image uploads")
struct ImageTests {
    @Test func aRawPNGIsStoredWithItsMetadata() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let data = try fixture("valid-rgba.png")
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(data: data), headers: [.contentType: "image/png"])
            #expect(response.status == .created)
            let image = try response.json()
            #expect(image["width"] as? Int64 == 8)
            #expect(image["height"] as? Int64 == 6)
            #expect(image["bytes"] as? Int64 == Int64(data.count))
            #expect(image["contentType"] as? String == "image/png")
            #expect((image["sha256"] as? String)?.count == 64)
        }
    }

    @Test func theSameBytesTwiceAreTheSameImage() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let body = ByteBuffer(data: try fixture("valid-gray.png"))
            let first = try await session.request(.post, "/api/images", as: mark, body: body, headers: [.contentType: "image/png"])
            let second = try await session.request(.post, "/api/images", as: mark, body: body, headers: [.contentType: "image/png"])
            #expect(first.status == .created)
            #expect(second.status == .ok)
            #expect(try first.json()["id"] as? Int64 == second.json()["id"] as? Int64)
        }
    }

    @Test func aMultipartUploadTakesTheFilePart() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            var body = ByteBuffer()
            body.writeString("--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nignored\r\n")
            body.writeString("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n")
            body.writeBytes(try fixture("valid-palette.png"))
            body.writeString("\r\n--XyZ--\r\n")
            let response = try await session.request(
                .post, "/api/images", as: mark, body: body, headers: [.contentType: "multipart/form-data; boundary=XyZ"])
            #expect(response.status == .created)
            #expect(try response.json()["width"] as? Int64 == 8)
        }
    }

    @Test(arguments: ["bad-crc-idat.png", "bad-crc-ancillary.png", "truncated.png", "no-iend.png", "trailing-data.png", "short-idat.png"])
    func aCorruptPNGIs422AndStoresNothing(name: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(data: try fixture(name)), headers: [.contentType: "image/png"])
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "image.corrupt")
            // A sound image uploaded next gets the first id: nothing was stored.
            #expect(try await session.upload(as: mark) == 1)
        }
    }

    @Test(arguments: ["dimension-bomb.png", "decompression-bomb.png"])
    func imagesOverThePixelLimitAre422(name: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(data: try fixture(name)), headers: [.contentType: "image/png"])
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "image.tooManyPixels")
        }
    }

    @Test func bytesThatAreNotAnImageAre415() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(string: "GIF89a, or anything else"), headers: [.contentType: "image/png"])
            #expect(response.status == .unsupportedMediaType)
            #expect(try response.error().code == "image.unsupportedType")
        }
    }

    @Test(arguments: [("valid.jpg", "image/jpeg"), ("valid.webp", "image/webp"), ("valid-alpha.webp", "application/octet-stream")])
    func aJPEGOrWebPIsStoredAndServedWithItsOwnType(name: String, declared: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let bytes = try fixture(name)
            let response = try await session.request(.post, "/api/images", as: mark, body: ByteBuffer(data: bytes), headers: [.contentType: declared])
            #expect(response.status == .created)
            let image = try response.json()
            let type = name.hasSuffix(".jpg") ? "image/jpeg" : "image/webp"
            #expect(image["contentType"] as? String == type)
            #expect(image["width"] as? Int64 == 64)
            let id = try #require(image["id"] as? Int64)
            let notification = try await session.send(#"{"message":"m","richType":"img","imageId":\#(id)}"#, as: mark)
            let payload = try await session.request(.get, "/api/notifications/\(notification)", as: mark)
            #expect(payload.headers[.contentType] == type)
            #expect(payload.body == ByteBuffer(data: bytes))
        }
    }

    @Test(arguments: [("valid.jpg", "image/png"), ("valid-rgba.png", "image/webp"), ("valid.webp", "image/jpeg")])
    func aDeclaredTypeTheBytesContradictIs415(name: String, declared: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(data: try fixture(name)), headers: [.contentType: declared])
            #expect(response.status == .unsupportedMediaType)
            #expect(try response.error().code == "image.typeMismatch")
        }
    }

    @Test func aMultipartPartDeclaredAsAnotherTypeThanItsBytesIs415() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            var body = ByteBuffer(
                string: "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.png\"\r\nContent-Type: image/png\r\n\r\n")
            body.writeBytes(try fixture("valid.jpg"))
            body.writeString("\r\n--b--\r\n")
            let response = try await session.request(
                .post, "/api/images", as: mark, body: body, headers: [.contentType: "multipart/form-data; boundary=b"])
            #expect(try response.error().code == "image.typeMismatch")
        }
    }

    @Test func aPartHeaderNameOutsideASCIIIs400AndTheGatewayGoesOn() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            var body = ByteBuffer(string: "--XX\r\n")
            body.writeBytes([0xFF, 0x80])
            body.writeString(": x\r\n\r\nbytes\r\n--XX--\r\n")
            let response = try await session.request(
                .post, "/api/images", as: mark, body: body, headers: [.contentType: "multipart/form-data; boundary=XX"])
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.invalidMultipart")
            #expect(try await session.request(.get, "/api/users/me", as: mark).status == .ok)
        }
    }

    @Test func aFileNameInUTF8IsStillAccepted() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            var body = ByteBuffer(string: "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"caf\u{E9}.png\"\r\n\r\n")
            body.writeBytes(try fixture("valid-rgba.png"))
            body.writeString("\r\n--b--\r\n")
            let response = try await session.request(
                .post, "/api/images", as: mark, body: body, headers: [.contentType: "multipart/form-data; boundary=b"])
            #expect(response.status == .created)
        }
    }

    @Test(arguments: [
        ("truncated.jpg", "image.corrupt"), ("not-png.jpg", "image.corrupt"), ("truncated.webp", "image.corrupt"),
        ("animated.webp", "image.unsupported"), ("dimension-bomb.jpg", "image.tooManyPixels"),
        ("dimension-bomb.webp", "image.tooManyPixels"),
    ])
    func aBrokenAnimatedOrOversizedJPEGOrWebPIs422AndNotStored(name: String, code: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(.post, "/api/images", as: mark, body: ByteBuffer(data: try fixture(name)))
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == code)
            let valid = try await session.upload("valid-rgba.png", as: mark)
            #expect(valid == 1)
        }
    }

    @Test(arguments: ["image/gif", "text/plain", "application/json"])
    func otherContentTypesAre415(contentType: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(data: try fixture("valid-rgba.png")), headers: [.contentType: contentType])
            #expect(response.status == .unsupportedMediaType)
        }
    }

    @Test func aBodyOverTheLimitIs413() async throws {
        try await TestGateway({ $0.imageLimits.maximumBytes = 2048 }).run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/images", as: mark, body: ByteBuffer(repeating: 0, count: 4096), headers: [.contentType: "image/png"])
            #expect(response.status == .contentTooLarge)
            #expect(try response.error().code == "request.tooLarge")
        }
    }

    @Test func aDeclaredLengthOverTheLimitIs413BeforeTheBodyIsRead() async throws {
        try await TestGateway({ $0.imageLimits.maximumBytes = 2048 }).run(.live) { session in
            let mark = try await session.createUser("mark", role: .marketer)
            // Announce 1 GiB but send almost nothing: the answer must come without waiting for the body.
            let response = try await rawHTTP(
                port: session.client.port!,
                "POST /api/images HTTP/1.1\r\nHost: x\r\nAuthorization: \(mark.authorization)\r\nContent-Type: image/png\r\nContent-Length: 1073741824\r\n\r\n\u{89}PNG"
            )
            #expect(response.hasPrefix("HTTP/1.1 413"))
        }
    }

    @Test func membersMayNotUploadImages() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .post, "/api/images", as: alice, body: ByteBuffer(data: try fixture("valid-rgba.png")), headers: [.contentType: "image/png"])
            #expect(response.status == .forbidden)
        }
    }

    @Test func anEmptyUploadIs422() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(.post, "/api/images", as: mark, headers: [.contentType: "image/png"])
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "image.empty")
        }
    }
}
