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

    /// bcrypt reads the password as a C string, so a NUL would end it early: such a password is refused before it
    /// gets here (``problem(with:)``), and this throws rather than hash a part of it.
    public func hash(_ password: String) async throws -> String {
        guard !Self.containsControlCharacter(password) else { throw UnusablePassword() }
        let cost = self.cost
        return try await ComputePool.shared.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` is the one `hash` was made from. A password holding a NUL or another control character
    /// never matches: bcrypt would compare only the part before a NUL.
    public func verify(_ password: String, hash: String) async throws -> Bool {
        guard !Self.containsControlCharacter(password) else { return false }
        return try await ComputePool.shared.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Why `password` cannot be used, or nil when it can.
    public static func problem(with password: String) -> String? {
        if containsControlCharacter(password) { return "The password must not contain NUL or other control characters." }
        if password.count < minimumPasswordLength { return "The password must have at least \(minimumPasswordLength) characters." }
        if password.utf8.count > maximumPasswordBytes { return "The password must not be longer than \(maximumPasswordBytes) bytes." }
        return nil
    }

    /// C0 controls (NUL among them), DEL and the C1 controls: nothing a person types as part of a password.
    static func containsControlCharacter(_ password: String) -> Bool {
        password.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

/// A password that bcrypt cannot hash whole.
public struct UnusablePassword: Error, CustomStringConvertible {
    public var description: String { "The password must not contain NUL or other control characters." }
}
