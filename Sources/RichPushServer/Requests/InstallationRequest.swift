import Foundation
import RichPushCore
import RichPushHubs
import RichPushStore

/// What a registration must respect besides its own form: the tags only marketers assign, the hosts a WNS channel
/// may name, and the addresses a channel the gateway posts to may reach.
struct InstallationRules: Sendable {
    var protectedTagPrefixes: [String]
    var wnsChannelHosts: WNSChannelHosts
    var outboundAddresses = OutboundAddressPolicy(allowsPrivateAddresses: false)
}

extension ServerConfiguration {
    var installationRules: InstallationRules {
        InstallationRules(
            protectedTagPrefixes: protectedTagPrefixes, wnsChannelHosts: hubs.wnsChannelHosts,
            outboundAddresses: OutboundAddressPolicy(allowsPrivateAddresses: hubs.allowPrivatePushEndpoints))
    }
}

/// The JSON body of `PUT /api/installations/{id}`, and one entry of an import, checked field by field into an
/// ``InstallationRecord``.
package struct InstallationRequest: Decodable, RequestErrorDomain {
    static let errorDomain = "installation"
    /// Only in an import; the path names it otherwise.
    var installationId: String?
    /// Only in an import; the caller owns it otherwise.
    var owner: String?
    var platform: Platform
    var pushChannel: PushChannelField
    var tags: [String]?
    var appVersion: String?
    var applicationName: String?
    var sdkVersion: String?
    var timeZone: String?
    /// BCP 47: which localization of a notification the device gets.
    var language: String?

    /// Notification Hubs allows 60 tags per registration.
    static let maximumTags = 60
    static let maximumChannelLength = 4096

    /// The installation this request registers, or the first problem found as an ``APIError``; tags with one of the
    /// rules' protected prefixes are the segments marketers assign, which no device sets itself.
    func record(id: String, owner: String, now: Date, rules: InstallationRules) throws -> InstallationRecord {
        var channel = pushChannel.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !channel.isEmpty, channel.utf8.count <= Self.maximumChannelLength else {
            throw APIError.unprocessable("installation.invalidPushChannel", "pushChannel must be 1 to \(Self.maximumChannelLength) bytes.")
        }
        guard platform.accepts(pushChannel: channel) else {
            throw APIError.unprocessable("installation.invalidPushChannel", "An APNs pushChannel is the hexadecimal device token.")
        }
        if platform == .wns, !rules.wnsChannelHosts.accepts(channel) {
            throw APIError.unprocessable(
                "installation.invalidPushChannel",
                "A WNS pushChannel is the channel URI: an https URL on \(rules.wnsChannelHosts.description), where the gateway may send its token.")
        }
        if platform == .webpush {
            do {
                channel = try WebPushSubscription(channel: channel, policy: rules.outboundAddresses).channel
            } catch {
                throw APIError.unprocessable("installation.invalidPushChannel", error.reason)
            }
        }
        let tags = try Self.validTags(tags ?? [], protectedPrefixes: rules.protectedTagPrefixes)
        for (name, value) in [
            ("appVersion", appVersion), ("applicationName", applicationName), ("sdkVersion", sdkVersion), ("timeZone", timeZone),
        ] {
            if let value, value.count > 200 { throw APIError.unprocessable("installation.invalidField", "\(name) must be at most 200 characters.") }
        }
        if let language, !LanguageTag.isValid(language) {
            throw APIError.unprocessable("installation.invalidLanguage", "language must be a BCP 47 language tag such as fr or pt-BR.")
        }
        return InstallationRecord(
            id: id, owner: owner, platform: platform, pushChannel: channel, tags: tags, appVersion: appVersion,
            applicationName: applicationName, sdkVersion: sdkVersion, timeZone: timeZone, language: language, createdAt: now, updatedAt: now)
    }

    /// `id` if it can name an installation.
    static func validId(_ id: String) throws -> String {
        guard Identifier.isValid(id) else {
            throw APIError.badRequest("installation.invalidId", "An installation id has 1 to 64 letters, digits or _ . @ -.")
        }
        return id
    }

    private static func validTags(_ tags: [String], protectedPrefixes: [String]) throws -> [String] {
        guard tags.count <= maximumTags else {
            throw APIError.unprocessable("installation.tooManyTags", "An installation may carry at most \(maximumTags) tags.")
        }
        for tag in tags {
            guard Tag.isValid(tag) else {
                throw APIError.unprocessable(
                    "installation.invalidTag", "'\(tag.prefix(130))' is not a tag: up to 120 letters, digits or _ @ # . : -.")
            }
            if let prefix = Tag.reservedPrefix(of: tag) {
                throw APIError.unprocessable("installation.reservedTag", "Tags starting with '\(prefix)' are set by the gateway.")
            }
            if let prefix = TagProtection.protectedPrefix(of: tag, among: protectedPrefixes) {
                throw APIError.unprocessable(
                    "installation.reservedTag",
                    "Tags starting with '\(prefix)' are segments, which marketers assign to users (PUT /api/users/{username}/segments).")
            }
        }
        return Array(Set(tags)).sorted()
    }
}
