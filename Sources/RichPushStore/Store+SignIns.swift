public import Foundation
import SQLKit

extension Store {
    /// Records a failed sign-in against each of `keys` (a username's and an address's) and returns, for each key,
    /// the times of its failures after `since`, oldest first: those of every process sharing the store.
    public func recordSignInFailure(keys: [String], at now: Date = .now, since: Date) async throws -> [String: [Date]] {
        try await engine.transaction { db in
            try await db.insert(into: "sign_in_failures").columns("throttle_key", "failed_at")
                .rows(keys.map { Self.binds($0, EpochMilliseconds(now)) }).run()
            return try await Self.signInFailures(keys: keys, since: since, in: db)
        }
    }

    /// Forgets the failures of `keys`: the right password was given.
    public func clearSignInFailures(keys: [String]) async throws {
        try await engine.transaction { db in
            try await db.delete(from: "sign_in_failures").where("throttle_key", .in, keys).run()
        }
    }

    /// The keys with at least `limit` failures after `since`, each with the times of those failures, oldest first.
    public func throttledSignInKeys(since: Date, limit: Int) async throws -> [String: [Date]] {
        try await engine.read { db in
            let keys = try await db.select().column("throttle_key").from("sign_in_failures")
                .where("failed_at", .greaterThan, EpochMilliseconds(since)).groupBy("throttle_key")
                .having(SQLFunction("COUNT", args: SQLLiteral.all), .greaterThanOrEqual, SQLBind(limit))
                .all().map { try $0.string("throttle_key") }
            guard !keys.isEmpty else { return [:] }
            return try await Self.signInFailures(keys: keys, since: since, in: db)
        }
    }

    /// Removes failures from before `date`, which no longer count; returns how many.
    @discardableResult
    public func pruneSignInFailures(before date: Date) async throws -> Int {
        try await engine.transaction { db in
            try await db.delete(from: "sign_in_failures").where("failed_at", .lessThanOrEqual, EpochMilliseconds(date))
                .returning("id").all().count
        }
    }

    /// The newest failures of each key decide everything a throttle does; older ones only take memory.
    static let signInFailuresKept = 128

    private static func signInFailures(keys: [String], since: Date, in db: any SQLDatabase) async throws -> [String: [Date]] {
        var failures: [String: [Date]] = [:]
        for key in keys {
            let times = try await db.select().column("failed_at").from("sign_in_failures")
                .where("throttle_key", .equal, key).where("failed_at", .greaterThan, EpochMilliseconds(since))
                .orderBy("failed_at", .descending).limit(signInFailuresKept).all().map { try $0.date("failed_at") }
            if !times.isEmpty { failures[key] = times.reversed() }
        }
        return failures
    }
}
