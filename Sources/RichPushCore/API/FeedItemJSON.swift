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
    /// The button the user pressed, by id; absent when none was.
    public var action: String?
    /// The buttons, labelled in the reader's language; absent when there are none.
    public var actions: [DeviceAction]?
    public var interruptionLevel: InterruptionLevel?
    public var createdAt: String

    public init(
        id: Int64, message: String, richTitle: String? = nil, richType: RichType, data: [String: String]? = nil, readState: ReadState,
        userActionState: UserActionState, action: String? = nil, actions: [DeviceAction]? = nil,
        interruptionLevel: InterruptionLevel? = nil, createdAt: String
    ) {
        self.action = action
        self.actions = actions
        self.interruptionLevel = interruptionLevel
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
