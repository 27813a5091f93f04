/// A device's registration: `PUT`/`GET /api/installations/{installationId}`, the list, `PUT /api/register/{id}`.
public struct InstallationJSON: Codable, Sendable, Equatable {
    public var installationId: String
    public var owner: String
    public var platform: Platform
    public var pushChannel: String
    /// Registered tags plus the automatic ones (`username:`, `installation:`, `platform:` …), sorted.
    public var tags: [String]
    public var appVersion: String?
    public var applicationName: String?
    public var sdkVersion: String?
    public var timeZone: String?
    public var language: String?
    public var createdAt: String
    public var updatedAt: String
    /// When a hub reported the device gone.
    public var deadAt: String?
    public var deadReason: String?

    public init(
        installationId: String, owner: String, platform: Platform, pushChannel: String, tags: [String], appVersion: String? = nil,
        applicationName: String? = nil, sdkVersion: String? = nil, timeZone: String? = nil, language: String? = nil, createdAt: String,
        updatedAt: String, deadAt: String? = nil, deadReason: String? = nil
    ) {
        self.installationId = installationId
        self.owner = owner
        self.platform = platform
        self.pushChannel = pushChannel
        self.tags = tags
        self.appVersion = appVersion
        self.applicationName = applicationName
        self.sdkVersion = sdkVersion
        self.timeZone = timeZone
        self.language = language
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deadAt = deadAt
        self.deadReason = deadReason
    }
}
