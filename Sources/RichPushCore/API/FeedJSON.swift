/// `GET /api/me/notifications`: a page of the caller's feed and the cursor to ask for what came after it.
public struct FeedJSON: Codable, Sendable, Equatable {
    public var items: [FeedItemJSON]
    /// A string, so clients treat it as opaque.
    public var cursor: String

    public init(items: [FeedItemJSON], cursor: String) {
        self.items = items
        self.cursor = cursor
    }
}
