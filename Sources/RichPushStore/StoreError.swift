/// Why the store refused a write, or could not be used at all.
public enum StoreError: Error, Sendable, Equatable {
    /// A unique value (`what`) is already taken.
    case duplicate(String)
    /// The thing does not exist.
    case notFound
    /// The installation id belongs to another user.
    case installationOwnedByAnother
    /// Another user's installation holds the push channel, and it is not one a hub issued to a single device.
    case channelTaken
    /// The owner already has the most installations allowed.
    case installationLimit(Int)
    /// The user has already created the most templates allowed.
    case templateLimit(Int)
    /// The store has no other processes to hear from: it is an exclusive one.
    case notShared
    /// The database server does not answer (stopped, restarting, out of reach): nothing was read or written, and the
    /// same operation may succeed once it is back.
    case unavailable
    /// The disk under the database is full: the write was rolled back whole, and succeeds again once space is freed.
    case full
}
