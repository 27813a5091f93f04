/// One notification in a user's feed, with the state the user's devices share; also the answer to
/// `PATCH /api/me/notifications/{id}`.
public struct FeedItemJSON: Codable, Sendable, Equatable {
    public var id: Int64
    /// In the language the reader's `Accept-Language` picks.
    public var message: String
    public var richTitle: String?
    public var richType: RichType
    /// Absent when the sender gave none.
    public var data: [String: String]?
    public var readState: ReadState
    public var userActionState: UserActionState
    public var createdAt: String

    public init(
        id: Int64, message: String, richTitle: String? = nil, richType: RichType, data: [String: String]? = nil, readState: ReadState,
        userActionState: UserActionState, createdAt: String
    ) {
        self.id = id
        self.message = message
        self.richTitle = richTitle
        self.richType = richType
        self.data = data
        self.readState = readState
        self.userActionState = userActionState
        self.createdAt = createdAt
    }
}
