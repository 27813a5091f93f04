public import Foundation
public import RichPushCore
import SQLKit

extension SQLInstallationRepository {
    /// The segments of each of `owners` that has any.
    static func segments(of owners: Set<String>, in db: any SQLDatabase) async throws -> [String: [String]] {
        var segments: [String: [String]] = [:]
        for chunk in owners.sorted().chunked(SQLNotificationRepository.insertChunk) {
            let rows = try await db.select().columns("username", "segments").from("users").where("username", .in, Array(chunk))
                .where("segments", .isNot, SQLLiteral.null).all()
            for row in rows { segments[try row.string("username")] = try Self.segments(row.optionalString("segments")) }
        }
        return segments
    }

    /// The JSON segments are stored as; nil for none.
    static func segmentsJSON(_ segments: [String]) throws -> String? {
        segments.isEmpty ? nil : String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)
    }

    static func segments(_ json: String?) throws -> [String] {
        guard let json else { return [] }
        return try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }
}
