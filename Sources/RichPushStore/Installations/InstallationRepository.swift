public import Foundation
public import RichPushCore

/// Devices registered for pushes, each with its owner, hub, push channel, tags and the owner's segments.
public protocol InstallationRepository: Sendable {
    /// Creates or replaces an installation; `created` tells which.
    ///
    /// A push channel held by another installation of the same owner moves to this one (the other is removed: it was
    /// the same device before a reinstall). Held by another user's installation, a channel a hub issued to one device
    /// moves too, and that installation stays, marked replaced: the device changed hands. Any other channel of
    /// another user's is refused with ``StoreError/channelTaken``. Registering again revives an installation a hub
    /// had reported gone, or one that was replaced.
    ///
    /// - Parameter limit: the most installations the owner may have; a new one beyond it throws
    ///   ``StoreError/installationLimit(_:)``. Nil for no limit.
    func upsert(_ installation: InstallationRecord, limit: Int?) async throws -> (
        record: InstallationRecord, created: Bool
    )
    /// Registers many installations in one transaction, each as ``upsert(_:limit:)`` would: all of them, or
    /// none when one is refused. Returns how many were created. An import that created a thousand or more leaves
    /// the planner the installations' new size, so a campaign sent right after it is planned for it.
    func importAll(_ installations: [InstallationRecord]) async throws -> Int
    /// The installation with this id.
    func installation(id: String) async throws -> InstallationRecord?
    /// The installations of `owner`, or of everyone when `owner` is nil, in id order.
    func list(owner: String?, limit: Int) async throws -> [InstallationRecord]
    /// Removes an installation; returns whether it existed.
    @discardableResult
    func delete(id: String, now: Date) async throws -> Bool
    /// The user's segments, sorted; nil when there is no such user.
    func segments(of username: String) async throws -> [String]?
    /// Replaces the user's segments and puts them on every installation of the user, in the same transaction, so an
    /// audience naming one reaches exactly the user's devices from then on; the remote hub's copies follow. Returns
    /// the segments, sorted, or nil when there is no such user; `audit` makes the trail's entry of them.
    func setSegments(
        _ segments: [String], of username: String, audit: @escaping @Sendable ([String]) -> AuditEntry?, now: Date
    ) async throws -> [String]?
    /// The size of `audience` now, resolved by the same queries that fill a new notification's outbox.
    func audienceSize(_ audience: TagExpression) async throws -> AudienceSize
}
