import Crypto
import Foundation
import Synchronization

/// Remembers `Authorization` headers whose credentials were verified (a password by bcrypt, a token by its digest),
/// so a request that repeats one costs a hash lookup instead of a bcrypt run or a database read, and not even a Base64
/// decode.
///
/// Entries are keyed by SHA-256 over a per-process random salt and the header: a wrong or changed password is a
/// different header and can never hit the cache, and no password or token is kept in memory. Each entry remembers
/// what it was verified against (the stored bcrypt hash, or the token's digest); after `revalidateAfter` the caller
/// rechecks that (a cheap read) so a password change, a revoked token or a removed user takes effect within seconds
/// on every process. A token's expiry takes effect at once.
final class CredentialCache: Sendable {
    /// What a cached header was verified against.
    enum Proof: Sendable, Equatable {
        case password(hash: String)
        case token(secretDigest: String, expiresAt: Date?)
    }

    struct Entry: Sendable {
        var user: AuthenticatedUser
        var proof: Proof
        var checkedAt: Date
    }

    enum Lookup {
        case hit(AuthenticatedUser)
        case stale(Entry)
        case miss
    }

    let revalidateAfter: TimeInterval
    let maximumEntries: Int
    /// SHA-256 already fed the per-process random salt, one whole block of it: each key then hashes its header
    /// alone (one block for any header up to 55 bytes, as Basic credentials and tokens are) from a copy of it.
    private let salted: SHA256
    private let entries = Mutex<[SHA256Digest: Entry]>([:])

    init(revalidateAfter: TimeInterval = 2, maximumEntries: Int = 10_000) {
        self.revalidateAfter = revalidateAfter
        self.maximumEntries = maximumEntries
        var salted = SHA256()
        salted.update(data: (0..<SHA256.blockByteCount).map { _ in UInt8.random(in: .min ... .max) })
        self.salted = salted
    }

    func lookup(_ authorization: String, now: Date = .now) -> Lookup {
        let key = self.key(authorization)
        return entries.withLock { entries in
            guard let entry = entries[key] else { return .miss }
            if case .token(_, let expiresAt?) = entry.proof, expiresAt <= now { return .stale(entry) }
            return now.timeIntervalSince(entry.checkedAt) < revalidateAfter ? .hit(entry.user) : .stale(entry)
        }
    }

    func store(_ authorization: String, user: AuthenticatedUser, proof: Proof, now: Date = .now) {
        let key = self.key(authorization)
        entries.withLock { entries in
            if entries.count >= maximumEntries, entries[key] == nil {
                // Dropping everything is rare and harmless: the next requests verify with bcrypt again.
                entries.removeAll(keepingCapacity: true)
            }
            entries[key] = Entry(user: user, proof: proof, checkedAt: now)
        }
    }

    func remove(_ authorization: String) {
        let key = self.key(authorization)
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Drops every entry of `username`, so this process stops accepting its old password at once; other processes
    /// notice within ``revalidateAfter``.
    func forget(username: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.user.username != username } }
    }

    /// Drops the entries of a revoked token, so this process refuses it at once; other processes notice within
    /// ``revalidateAfter``.
    func forget(tokenId: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.user.tokenId != tokenId } }
    }

    /// The salted digest that stands for `authorization` everywhere in memory.
    func key(_ authorization: String) -> SHA256Digest {
        var hasher = salted
        var header = authorization
        header.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }
}
