#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A device registration.
public struct InstallationRecord: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var platform: Platform
    public var pushChannel: String
    /// The tags the device registered; the automatic ones are derived, see ``allTags``.
    public var tags: [String]
    public var appVersion: String?
    public var applicationName: String?
    public var sdkVersion: String?
    public var timeZone: String?
    /// BCP 47: which localization of a notification this device gets.
    public var language: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Set when a hub reported the device gone, or another user's installation took its hub-issued channel;
    /// cleared when it registers again.
    public var deadAt: Date?
    public var deadReason: String?
    /// The owner's segments (protected tags marketers and admins assign to the user), which every installation of
    /// the user carries; the store fills them in.
    public var segments: [String] = []

    /// The dead reason of an installation whose channel another user's installation registered.
    public static let replacedReason = "installation.replaced"

    /// Whether another user's installation took this one's channel: the device changed hands.
    public var isReplaced: Bool { deadReason == Self.replacedReason }

    public init(
        id: String, owner: String, platform: Platform, pushChannel: String, tags: [String], appVersion: String? = nil,
        applicationName: String? = nil, sdkVersion: String? = nil, timeZone: String? = nil, language: String? = nil, createdAt: Date,
        updatedAt: Date, deadAt: Date? = nil, deadReason: String? = nil, segments: [String] = []
    ) {
        self.segments = segments
        self.language = language
        self.id = id
        self.owner = owner
        self.platform = platform
        self.pushChannel = pushChannel
        self.tags = tags
        self.appVersion = appVersion
        self.applicationName = applicationName
        self.sdkVersion = sdkVersion
        self.timeZone = timeZone
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deadAt = deadAt
        self.deadReason = deadReason
    }

    /// The registered tags plus `username:`, `installation:` and `platform:`, and `language:`, `timezone:` and
    /// `appversion:` from the installation's fields.
    public var allTags: Set<String> {
        Set(tags).union([Tag.user(owner), Tag.installation(id), Tag.platform(platform)])
            .union(Tag.deviceFields(language: language, timeZone: timeZone, appVersion: appVersion)).union(segments)
    }
}

/// One installation whose registration in a remote hub must be brought in step.
public struct MirrorTask: Sendable, Equatable {
    public var installationId: String
    public var version: Int64
    public var attempts: Int
    /// The installation as it is now; nil (or of a platform the hub does not carry) means: remove it from the hub.
    public var installation: InstallationRecord?

    public init(installationId: String, version: Int64, attempts: Int, installation: InstallationRecord? = nil) {
        self.installationId = installationId
        self.version = version
        self.attempts = attempts
        self.installation = installation
    }
}

/// How many devices and people an audience reaches at one instant, as a notification created then would address.
public struct AudienceSize: Sendable, Equatable {
    /// Live installations whose tags satisfy the expression.
    public var installations: Int
    /// Distinct users who would find the notification in their feed: owners of those installations, and users the
    /// expression names with `username:` even without a device.
    public var recipients: Int
    /// The installations by platform, every platform present.
    public var installationsByPlatform: [Platform: Int]

    public init(installations: Int, recipients: Int, installationsByPlatform: [Platform: Int]) {
        self.installations = installations
        self.recipients = recipients
        self.installationsByPlatform = installationsByPlatform
    }
}
