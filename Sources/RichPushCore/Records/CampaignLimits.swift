#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What holds marketers' notifications back at the moment they would be sent (`--frequency-cap`, `--quiet-hours`),
/// and which notifications a claim leaves for later altogether.
public struct CampaignLimits: Sendable, Equatable {
    public var frequencyCap: FrequencyCap?
    public var quietHours: QuietHours?
    /// The zone of installations without one, or with a name the time-zone database does not know.
    public var defaultTimeZone: TimeZone
    /// Notifications none of whose deliveries a claim takes for now: image campaigns, while payloads go out at
    /// `--payload-egress-limit`.
    public var heldBack: Set<Int64> = []

    public init(frequencyCap: FrequencyCap? = nil, quietHours: QuietHours? = nil, defaultTimeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.frequencyCap = frequencyCap
        self.quietHours = quietHours
        self.defaultTimeZone = defaultTimeZone
    }

    /// Whether anything holds marketers' notifications back.
    public var isActive: Bool { frequencyCap != nil || quietHours != nil }
}
