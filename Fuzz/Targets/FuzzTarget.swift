public import Foundation
import NIOCore
import RichPushCore
import RichPushHubs
import RichPushImaging
import RichPushServer

/// The parsers that read bytes a stranger chose, each fed whole inputs by libFuzzer (`scripts/fuzz`) and, in the test
/// suite, by the committed corpus and every input that once crashed one of them.
///
/// A target returns normally for every input: a refusal is a thrown error it swallows, so whatever else happens (a
/// trap, an overflow, a sanitizer report, a hang) is a finding.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// PNG, JPEG and WebP through validation and a decode scaled for an alert, as an upload and richpushd meet them.
    case images
    /// Audience expressions such as `topic:sale && !lang:fr`, parsed and then matched.
    case tagExpressions
    /// The direct stream as richpushd reads it, in chunks cut where the first byte says.
    case serverSentEvents
    /// A hub's HTTP/2 answer headers through the hand-written HPACK decoder, block after block on one table.
    case hpack
    /// Request bodies through the strict JSON decoding of the API, the first byte choosing the request.
    case requests
    /// A template's text through the placeholder check and a render, as a marketer's template or send meets them.
    case templates

    public func run(_ bytes: Data) {
        switch self {
        case .images: Self.images(bytes)
        case .tagExpressions: Self.tagExpressions(bytes)
        case .serverSentEvents: Self.serverSentEvents(bytes)
        case .hpack: Self.hpack(bytes)
        case .requests: Self.requests(bytes)
        case .templates: Self.templates(bytes)
        }
    }

    /// Small enough that libFuzzer's memory limit is never what stops a decode.
    private static let imageLimits = ImageLimits(maximumBytes: 1 << 20, maximumPixels: 4_000_000)

    private static func images(_ bytes: Data) {
        _ = try? ImageDecoder.validate(bytes, limits: imageLimits)
        _ = try? ImageDecoder.decode(bytes, limits: imageLimits, fittingIn: 128)
    }

    private static func tagExpressions(_ bytes: Data) {
        guard let expression = try? TagExpression(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        _ = expression.matches(["topic:sale", "lang:fr", "platform:apns", "appVersion:2.4.1"])
    }

    private static func serverSentEvents(_ bytes: Data) {
        guard let first = bytes.first else { return }
        var parser = ServerSentEventParser()
        let chunk = Int(first % 17) + 1
        var rest = bytes.dropFirst()
        while !rest.isEmpty {
            _ = parser.feed(rest.prefix(chunk))
            rest = rest.dropFirst(chunk)
        }
    }

    private static func hpack(_ bytes: Data) {
        var decoder = HPACKResponseDecoder(maximumHeaderListSize: 16 * 1024)
        // Blocks of the length their first byte says, as consecutive answers on one connection share a table.
        var rest = bytes[...]
        while let length = rest.first {
            var block = ByteBuffer(bytes: rest.dropFirst().prefix(Int(length)))
            rest = rest.dropFirst(Int(length) + 1)
            guard (try? decoder.decode(&block, keep: length % 2 == 0)) != nil else { return }
        }
    }

    private static func requests(_ bytes: Data) {
        guard let first = bytes.first else { return }
        let body = ByteBuffer(bytes: bytes.dropFirst())
        if first % 2 == 0 {
            _ = try? StrictRequestDecoder.decode(NewNotificationJSON.self, from: body)
        } else {
            _ = try? StrictRequestDecoder.decode(InstallationRequest.self, from: body)
        }
    }

    private static let variables = ["a": String(repeating: "v", count: 300), "b": "", "percent": "30"]

    private static func templates(_ bytes: Data) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? Placeholders.render(text, field: "message", with: variables, limit: 4000, tooLong: CancellationError())
    }
}
