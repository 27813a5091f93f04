public import Foundation
public import RichPushCore
import SQLKit

/// The images in the `images` table, bytes and all.
public struct SQLImageRepository: ImageRepository {
    let engine: any DatabaseEngine

    public func insert(
        data: Data, sha256: String, contentType: String, width: Int, height: Int, createdBy: String, now: Date = .now
    ) async throws -> (image: ImageRecord, created: Bool) {
        try await engine.transaction { db in
            let inserted = try await db.insert(into: "images")
                .columns("sha256", "content_type", "width", "height", "byte_count", "data", "created_by", "created_at")
                .values(sha256, contentType, width, height, data.count, data, createdBy, EpochMilliseconds(now))
                .ignoringConflicts(with: "sha256")
                .returning("id")
                .first()
            let image = try await db.select().columns(Self.columns).from("images").where("sha256", .equal, sha256)
                .first().map(Self.record)!
            return (image, inserted != nil)
        }
    }

    public func image(id: Int64) async throws -> ImageRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.columns).from("images").where("id", .equal, id).first().map(Self.record)
        }
    }

    public func image(sha256: String) async throws -> ImageRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.columns).from("images").where("sha256", .equal, sha256).first().map(Self.record)
        }
    }

    public func data(id: Int64) async throws -> Data? {
        try await engine.read { db in
            try await db.select().column("data").from("images").where("id", .equal, id).first()?.decode(column: "data", as: Data.self)
        }
    }

    private static let columns = ["id", "sha256", "content_type", "width", "height", "byte_count", "created_by", "created_at"]

    private static func record(_ row: any SQLRow) throws -> ImageRecord {
        ImageRecord(
            id: try row.int64("id"), sha256: try row.string("sha256"), contentType: try row.string("content_type"),
            width: try row.int("width"), height: try row.int("height"), byteCount: try row.int("byte_count"),
            createdBy: try row.string("created_by"), createdAt: try row.date("created_at"))
    }
}
