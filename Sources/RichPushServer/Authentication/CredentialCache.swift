import Crypto
import Foundation
import Synchronization

/// Remembers credentials that bcrypt verified, so a request with the same username and password costs a hash
/// lookup instead of a bcrypt run.
///
/// Entries are keyed by SHA-256 over a per-process random salt, the username and the password: a wrong or changed
/// password has a different key and can never hit the cache, and no password is kept in memory. Each entry remembers
/// the stored bcrypt hash it was verified against; after `revalidateAfter` the caller rechecks that hash (a cheap
/// read) so a password change or a removed user takes effect within seconds on every process.
final class CredentialCache: Sendable {
    struct Entry: Sendable {
        var user: AuthenticatedUser
        var passwordHash: String
        var checkedAt: Date
    }

    enum Lookup {
        case hit(AuthenticatedUser)
        case stale(Entry)
        case miss
    }

    let revalidateAfter: TimeInterval
    let maximumEntries: Int
    private let salt: [UInt8]
    private let entries = Mutex<[SHA256Digest: Entry]>([:])

    init(revalidateAfter: TimeInterval = 2, maximumEntries: Int = 10_000) {
        self.revalidateAfter = revalidateAfter
        self.maximumEntries = maximumEntries
        self.salt = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
    }

    func lookup(_ credentials: BasicCredentials, now: Date = .now) -> Lookup {
        let key = self.key(credentials)
        return entries.withLock { entries in
            guard let entry = entries[key] else { return .miss }
            return now.timeIntervalSince(entry.checkedAt) < revalidateAfter ? .hit(entry.user) : .stale(entry)
        }
    }

    func store(_ credentials: BasicCredentials, user: AuthenticatedUser, passwordHash: String, now: Date = .now) {
        let key = self.key(credentials)
        entries.withLock { entries in
            if entries.count >= maximumEntries, entries[key] == nil {
                // Dropping everything is rare and harmless: the next requests verify with bcrypt again.
                entries.removeAll(keepingCapacity: true)
            }
            entries[key] = Entry(user: user, passwordHash: passwordHash, checkedAt: now)
        }
    }

    func remove(_ credentials: BasicCredentials) {
        let key = self.key(credentials)
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Drops every entry of `username`, so this process stops accepting its old password at once; other processes
    /// notice within ``revalidateAfter``.
    func forget(username: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.user.username != username } }
    }

    private func key(_ credentials: BasicCredentials) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Array(credentials.username.utf8))
        hasher.update(data: [0])
        hasher.update(data: Array(credentials.password.utf8))
        return hasher.finalize()
    }
}
