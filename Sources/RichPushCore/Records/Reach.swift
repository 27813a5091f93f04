/// How far a notification (or one of its variants) reached: of its deliveries whose push went out, how many devices
/// fetched the payload and how soon after their push, and how many were reached at all.
///
/// A delivery is reached when its device fetched the payload (or, where the device did not name itself, its user
/// did), or reported the alert displayed, whether after its silent push or after its fallback. Its JSON is the
/// status's `reach` as it is.
public struct Reach: Codable, Sendable, Equatable {
    public var fetchedWithin1m = 0
    public var fetchedWithin10m = 0
    public var fetchedWithin1h = 0
    public var reached = 0
    public var notReached = 0
    /// The median and the 90th percentile of the time from a push to its fetch, in seconds; nil before any fetch.
    public var fetchSecondsP50: Double?
    public var fetchSecondsP90: Double?

    public init(
        fetchedWithin1m: Int = 0, fetchedWithin10m: Int = 0, fetchedWithin1h: Int = 0, reached: Int = 0, notReached: Int = 0,
        fetchSecondsP50: Double? = nil, fetchSecondsP90: Double? = nil
    ) {
        self.fetchedWithin1m = fetchedWithin1m
        self.fetchedWithin10m = fetchedWithin10m
        self.fetchedWithin1h = fetchedWithin1h
        self.reached = reached
        self.notReached = notReached
        self.fetchSecondsP50 = fetchSecondsP50
        self.fetchSecondsP90 = fetchSecondsP90
    }
}

/// The deliveries of a notification whose push went out, counted by the step of time their fetch came in: what a
/// ``Reach`` is computed from, so a store counts them without reading each delivery out.
///
/// Steps are a tenth of a second under a minute, a second under an hour and a minute beyond, so a percentile is that
/// precise, and a step never straddles the 1 min, 10 min or 1 h marks.
public struct FetchDelays: Sendable, Equatable {
    /// Deliveries by the start of their fetch's step, in seconds after their push.
    public private(set) var fetched: [Double: Int] = [:]
    /// Deliveries not fetched whose device reported the alert displayed.
    public private(set) var displayedOnly = 0
    /// Deliveries neither fetched nor displayed.
    public private(set) var unreached = 0

    public init() {}

    /// How a fetch's delay after its push, in milliseconds, maps to its step: a delay below `below` (the first tier
    /// that takes it) is in step `firstStep + delay / millisecondsPerStep`.
    public struct Tier: Sendable {
        public let below: Int64?
        public let millisecondsPerStep: Int64
        public let firstStep: Int64
    }

    /// A tenth of a second under a minute, a second under an hour, a minute beyond; each tier's steps start past the
    /// last of the tier before.
    public static let tiers = [
        Tier(below: 60_000, millisecondsPerStep: 100, firstStep: 0),
        Tier(below: 3_600_000, millisecondsPerStep: 1000, firstStep: 600),
        Tier(below: nil, millisecondsPerStep: 60_000, firstStep: 5000),
    ]

    /// The first second after the push of `step`.
    public static func start(ofStep step: Int64) -> Double {
        let tier = tiers.last { $0.firstStep <= step } ?? tiers[0]
        return Double((step - tier.firstStep) * tier.millisecondsPerStep) / 1000
    }

    /// Adds `count` deliveries fetched in `step`, or (nil) not fetched, displayed or not.
    public mutating func add(step: Int64?, displayed: Bool, count: Int) {
        if let step {
            fetched[Self.start(ofStep: step), default: 0] += count
        } else if displayed {
            displayedOnly += count
        } else {
            unreached += count
        }
    }

    public var reach: Reach {
        let steps = fetched.sorted { $0.key < $1.key }
        let fetchedCount = steps.reduce(0) { $0 + $1.value }
        func within(_ seconds: Double) -> Int { steps.filter { $0.key < seconds }.reduce(0) { $0 + $1.value } }
        /// The start of the step holding the fetch of rank ⌈share × fetched⌉ (the nearest-rank percentile).
        func percentile(_ share: Double) -> Double? {
            guard fetchedCount > 0 else { return nil }
            let rank = max(1, Int((share * Double(fetchedCount)).rounded(.up)))
            var seen = 0
            for (start, count) in steps {
                seen += count
                if seen >= rank { return start }
            }
            return steps.last?.key
        }
        return Reach(
            fetchedWithin1m: within(60), fetchedWithin10m: within(600), fetchedWithin1h: within(3600),
            reached: fetchedCount + displayedOnly, notReached: unreached, fetchSecondsP50: percentile(0.5),
            fetchSecondsP90: percentile(0.9))
    }
}

/// The reach of a notification in all, and of each of its variants by name.
public struct NotificationReach: Sendable, Equatable {
    public var total: Reach
    public var variants: [String: Reach]

    public init(total: Reach = Reach(), variants: [String: Reach] = [:]) {
        self.total = total
        self.variants = variants
    }
}
