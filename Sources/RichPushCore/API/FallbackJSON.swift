/// A notification's fetch deadline: each remote device that has not fetched the payload `after` its silent push
/// (an ISO 8601 duration, `PT1M` to `PT24H`) gets one push in `style` (`alert`, the only one) instead.
public struct FallbackJSON: Codable, Sendable, Equatable {
    public var after: String?
    public var style: String?

    public init(after: String?, style: String? = "alert") {
        self.after = after
        self.style = style
    }
}
