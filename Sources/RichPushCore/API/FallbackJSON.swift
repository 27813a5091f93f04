/// A notification's fetch deadline: each remote device that has not fetched the payload `after` its silent push
/// (an ISO 8601 duration, `PT1M` to `PT24H`) gets one push in `style` (`alert`, the only one) instead.
public struct FallbackJSON: Codable, Sendable, Equatable {
    public var after: String?
    public var style: String?

    /// The shortest and longest fetch deadlines, in seconds: a minute to a day.
    public static let afterRange: ClosedRange<Double> = 60...86_400

    public init(after: String?, style: String? = "alert") {
        self.after = after
        self.style = style
    }

    /// The alert-style deadline `seconds` after the silent push, as the API spells it (`PT10M`).
    public init(afterSeconds seconds: Double) {
        self.init(after: ISODuration.text(ofSeconds: seconds))
    }
}
