#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What holds marketers' notifications back at the moment they would be sent (`--frequency-cap`, `--quiet-hours`).
public struct CampaignLimits: Sendable, Equatable {
    public var frequencyCap: FrequencyCap?
    public var quietHours: QuietHours?
    /// The zone of installations without one, or with a name the time-zone database does not know.
    public var defaultTimeZone: TimeZone

    public init(frequencyCap: FrequencyCap? = nil, quietHours: QuietHours? = nil, defaultTimeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.frequencyCap = frequencyCap
        self.quietHours = quietHours
        self.defaultTimeZone = defaultTimeZone
    }

    /// Whether anything holds marketers' notifications back.
    public var isActive: Bool { frequencyCap != nil || quietHours != nil }
}
