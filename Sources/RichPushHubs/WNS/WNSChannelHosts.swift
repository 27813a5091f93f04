import Foundation
import RichPushCore

/// The hosts a WNS channel URI may name (`--wns-channel-hosts`). The gateway sends its WNS bearer token to the
/// channel's host, so a channel anywhere else would hand the token to whoever runs that host.
public struct WNSChannelHosts: Sendable, Equatable {
    /// Lower-cased host names; `*.example.com` stands for any name below `example.com`.
    public let patterns: [String]

    public static let standard = WNSChannelHosts(patterns: ["*.notify.windows.com"])

    public init(patterns: [String]) {
        self.patterns = patterns.map { $0.lowercased() }
    }

    /// Comma-separated host names, each possibly `*.` and a domain.
    public init(parsing text: String) throws(HubConfigurationError) {
        let patterns = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let hostName = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/
        guard !patterns.isEmpty, patterns.allSatisfy({ $0.wholeMatch(of: hostName) != nil }) else {
            throw HubConfigurationError(
                "\(ServeHubSettings.wnsChannelHosts.name): '\(text)' is not a comma-separated list of host names such as *.notify.windows.com")
        }
        self.init(patterns: patterns)
    }

    /// Whether `channel` is an https URL on one of the hosts.
    public func accepts(_ channel: String) -> Bool {
        URL(string: channel).map(accepts) ?? false
    }

    /// Whether `url` is an https URL on one of the hosts; a push that has parsed its channel asks this, not parsing it
    /// again.
    func accepts(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == "https", let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil
        else { return false }
        return patterns.contains { pattern in
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
            return host == pattern
        }
    }

    public var description: String { patterns.joined(separator: ",") }
}
