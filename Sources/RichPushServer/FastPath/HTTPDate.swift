import Foundation
import Synchronization

/// The `Date` header value (RFC 9110 IMF-fixdate), formatted once per second rather than once per response.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((0, ""))

    static var now: String { text(at: currentSecond) }

    /// The second of the Unix time now, from the kernel's clock page (`time`), without a system call.
    static var currentSecond: Int { Int(time(nil)) }

    /// The value for `second` of the Unix time.
    static func text(at second: Int) -> String {
        if let cached = cache.withLock({ $0.second == second ? $0.text : nil }) { return cached }
        let text = format(time_t(second))
        cache.withLock { $0 = (second, text) }
        return text
    }

    /// `time` as an IMF-fixdate, as `Last-Modified` carries it.
    static func format(_ time: time_t) -> String {
        var time = time
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
