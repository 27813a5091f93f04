/// `GET /api/notifications/{id}/timeline`: the funnel's events counted in buckets of `step` seconds since the
/// notification was created.
public struct TimelineJSON: Codable, Sendable, Equatable {
    public struct Bucket: Codable, Sendable, Equatable {
        /// The bucket's start.
        public var at: String
        public var sent: Int
        public var fetched: Int
        public var displayed: Int
        public var opened: Int
        public var dismissed: Int
        /// Alerts sent because the payload was not fetched by the fetch deadline.
        public var fallbacks: Int

        public init(at: String, sent: Int, fetched: Int, displayed: Int, opened: Int, dismissed: Int, fallbacks: Int = 0) {
            self.fallbacks = fallbacks
            self.at = at
            self.sent = sent
            self.fetched = fetched
            self.displayed = displayed
            self.opened = opened
            self.dismissed = dismissed
        }
    }

    public var step: Int
    public var buckets: [Bucket]

    public init(step: Int, buckets: [Bucket]) {
        self.step = step
        self.buckets = buckets
    }
}
