/// `GET`/`PUT /api/users/{username}/segments`: the protected tags a user is in.
public struct SegmentsJSON: Codable, Sendable, Equatable {
    public var username: String
    public var segments: [String]

    public init(username: String, segments: [String]) {
        self.username = username
        self.segments = segments
    }
}
