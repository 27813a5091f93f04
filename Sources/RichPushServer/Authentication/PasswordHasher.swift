import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's thread pool: one verification takes tens of milliseconds and must not stall the event loops
/// or the cooperative executor.
public struct PasswordHasher: Sendable {
    /// The work factor of new hashes.
    public let cost: UInt8

    /// Every hash the gateway and its command line write uses this work factor.
    public static let productionCost: UInt8 = 10

    public init() {
        self.cost = Self.productionCost
    }

    /// A cheaper factor, for test suites that create hundreds of users; bcrypt's minimum is 4.
    init(cost: UInt8) {
        precondition((4...31).contains(cost), "bcrypt costs range from 4 to 31")
        self.cost = cost
    }

    /// bcrypt uses only the first 72 bytes of a password; longer ones are refused rather than silently cut.
    public static let maximumPasswordBytes = 72
    public static let minimumPasswordLength = 8

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await ComputePool.shared.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await ComputePool.shared.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Why `password` cannot be used, or nil when it can.
    public static func problem(with password: String) -> String? {
        if password.count < minimumPasswordLength { return "The password must have at least \(minimumPasswordLength) characters." }
        if password.utf8.count > maximumPasswordBytes { return "The password must not be longer than \(maximumPasswordBytes) bytes." }
        return nil
    }
}
