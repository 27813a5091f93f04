import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's thread pool: one verification takes tens of milliseconds and must not stall the event loops
/// or the cooperative executor.
public struct PasswordHasher: Sendable {
    /// The work factor of new hashes; 10 or more.
    public let cost: UInt8

    public init(cost: UInt8 = 10) {
        self.cost = max(cost, 10)
    }

    /// bcrypt uses only the first 72 bytes of a password; longer ones are refused rather than silently cut.
    public static let maximumPasswordBytes = 72
    public static let minimumPasswordLength = 8

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Why `password` cannot be used, or nil when it can.
    public static func problem(with password: String) -> String? {
        if password.count < minimumPasswordLength { return "The password must have at least \(minimumPasswordLength) characters." }
        if password.utf8.count > maximumPasswordBytes { return "The password must not be longer than \(maximumPasswordBytes) bytes." }
        return nil
    }
}
