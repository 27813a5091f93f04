public import Foundation
import SQLKit

/// The failures in the `sign_in_failures` table.
public struct SQLSignInFailureRepository: SignInFailureRepository {
    let engine: any DatabaseEngine

    public func record(keys: [String], at now: Date = .now, since: Date) async throws -> [String: [Date]] {
        try await engine.transaction { db in
            try await db.insert(into: "sign_in_failures").columns("throttle_key", "failed_at")
                .rows(keys.map { SQLNotificationRepository.binds($0, EpochMilliseconds(now)) }).run()
            return try await Self.failures(keys: keys, since: since, in: db)
        }
    }

    public func clear(keys: [String]) async throws {
        try await engine.transaction { db in
            try await db.delete(from: "sign_in_failures").where("throttle_key", .in, keys).run()
        }
    }

    public func throttledKeys(since: Date, limit: Int) async throws -> [String: [Date]] {
        try await engine.read { db in
            let keys = try await db.select().column("throttle_key").from("sign_in_failures")
                .where("failed_at", .greaterThan, EpochMilliseconds(since)).groupBy("throttle_key")
                .having(SQLFunction("COUNT", args: SQLLiteral.all), .greaterThanOrEqual, SQLBind(limit))
                .all().map { try $0.string("throttle_key") }
            guard !keys.isEmpty else { return [:] }
            return try await Self.failures(keys: keys, since: since, in: db)
        }
    }

    @discardableResult
    public func prune(before date: Date) async throws -> Int {
        try await engine.transaction { db in
            try await db.delete(from: "sign_in_failures").where("failed_at", .lessThanOrEqual, EpochMilliseconds(date))
                .returning("id").all().count
        }
    }

    /// The newest failures of each key decide everything a throttle does; older ones only take memory.
    static let kept = 128

    private static func failures(keys: [String], since: Date, in db: any SQLDatabase) async throws -> [String: [Date]] {
        var failures: [String: [Date]] = [:]
        for key in keys {
            let times = try await db.select().column("failed_at").from("sign_in_failures")
                .where("throttle_key", .equal, key).where("failed_at", .greaterThan, EpochMilliseconds(since))
                .orderBy("failed_at", .descending).limit(kept).all().map { try $0.date("failed_at") }
            if !times.isEmpty { failures[key] = times.reversed() }
        }
        return failures
    }
}
