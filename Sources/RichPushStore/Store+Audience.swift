public import RichPushCore
import SQLKit

/// An installation addressed by an audience, as the outbox records it.
struct AudienceMember: Sendable {
    var installationId: String
    var owner: String
    var platform: String
    var pushChannel: String
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
}

extension Store {
    /// The size of `audience` now, resolved by the same queries that fill a new notification's outbox.
    public func audienceSize(_ audience: TagExpression) async throws -> AudienceSize {
        try await engine.read { db in
            let members = try await Self.resolveAudience(audience, in: db)
            var byPlatform = Dictionary(uniqueKeysWithValues: Platform.allCases.map { ($0, 0) })
            for member in members {
                if let platform = Platform(rawValue: member.platform) { byPlatform[platform, default: 0] += 1 }
            }
            let recipients = try await Self.recipients(of: members, audience: audience, in: db)
            return AudienceSize(installations: members.count, recipients: recipients.count, installationsByPlatform: byPlatform)
        }
    }

    /// Everyone who gets a feed entry: the owners of the addressed installations and the named users.
    static func recipients(of members: [AudienceMember], audience: TagExpression, in db: any SQLDatabase) async throws -> Set<String> {
        Set(members.map(\.owner)).union(try await namedRecipients(audience, in: db))
    }

    /// The live installations whose tags satisfy `audience`, evaluated inside the creating transaction so the
    /// outbox matches the registrations of that instant.
    static func resolveAudience(_ audience: TagExpression, in db: any SQLDatabase) async throws -> [AudienceMember] {
        var query = db.select()
            .columns(SQLColumn("installation_id", table: "t"), SQLColumn("tag", table: "t"))
            .columns(SQLColumn("owner", table: "i"), SQLColumn("platform", table: "i"), SQLColumn("push_channel", table: "i"))
            .from(SQLAlias(SQLIdentifier("installation_tags"), as: SQLIdentifier("t")))
            .join(
                SQLAlias(SQLIdentifier("installations"), as: SQLIdentifier("i")), method: SQLJoinMethod.inner,
                on: SQLColumn("id", table: "i"), .equal, SQLColumn("installation_id", table: "t")
            )
            .where(SQLColumn("dead_at", table: "i"), .is, SQLLiteral.null)
        if let required = audience.requiredTags {
            // Only installations holding one of these tags can match: look them up by tag instead of scanning all.
            query = query.where(
                SQLColumn("installation_id", table: "t"), .in,
                SQLSubquery.select { $0.column("installation_id").from("installation_tags").where("tag", .in, Array(required)) })
        }
        var tagsByInstallation: [String: Set<String>] = [:]
        var members: [String: AudienceMember] = [:]
        for row in try await query.all() {
            let id = try row.string("installation_id")
            tagsByInstallation[id, default: []].insert(try row.string("tag"))
            if members[id] == nil {
                members[id] = AudienceMember(
                    installationId: id, owner: try row.string("owner"), platform: try row.string("platform"),
                    pushChannel: try row.string("push_channel"))
            }
        }
        return members.values.filter { audience.matches(tagsByInstallation[$0.installationId] ?? []) }
            .sorted { $0.installationId < $1.installationId }
    }

    /// Users the audience names with `username:` who are addressed even without a device, so the payload and the
    /// feed entry wait for them when they register.
    static func namedRecipients(_ audience: TagExpression, in db: any SQLDatabase) async throws -> Set<String> {
        let named = audience.tags.filter { $0.hasPrefix("username:") }
            .filter { audience.matches([$0]) }
            .map { String($0.dropFirst("username:".count)) }
        guard !named.isEmpty else { return [] }
        let existing = try await db.select().column("username").from("users").where("username", .in, Array(named)).all()
        return Set(try existing.map { try $0.string("username") })
    }
}
