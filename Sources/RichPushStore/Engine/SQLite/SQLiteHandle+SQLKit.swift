import Logging
import NIOCore
import SQLKit
import SQLiteKit

/// A row of a result, read by SQLKit's decoding.
struct SQLiteResultRow: SQLRow {
    let columns: SQLiteColumnNames
    let values: [SQLiteData]
    private static let decoder = SQLiteDataDecoder()

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool {
        columns.index(of: column) != nil
    }

    func decodeNil(column: String) throws -> Bool {
        columns.index(of: column).map { values[$0] == .null } ?? true
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let index = columns.index(of: column) else {
            throw DecodingError.valueNotFound(D.self, .init(codingPath: [], debugDescription: "the result has no column \(column)"))
        }
        let value = values[index]
        // The store reads integers and text nearly always: those skip the generic decoder and its dynamic casts.
        switch value {
        case .integer(let number) where D.self == Int64.self || D.self == Int64?.self:
            return D.self == Int64.self ? unsafeBitCast(Int64(number), to: D.self) : unsafeBitCast(Int64?.some(Int64(number)), to: D.self)
        case .text(let text) where D.self == String.self:
            return unsafeBitCast(text, to: D.self)
        case .text(let text) where D.self == String?.self:
            return unsafeBitCast(String?.some(text), to: D.self)
        case .null where D.self == String?.self:
            return unsafeBitCast(String?.none, to: D.self)
        default:
            return try Self.decoder.decode(D.self, from: value)
        }
    }
}

/// An SQLKit database on one SQLite connection, for code running on that connection's executor.
struct SQLiteHandleDatabase: SQLDatabase {
    let handle: SQLiteHandle
    let logger: Logger
    let eventLoop: any EventLoop
    private static let encoder = SQLiteDataEncoder()

    var dialect: any SQLDialect { SQLiteDialect() }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        logger.trace("executing query", metadata: ["sql": "\(sql)"])
        let values = try binds.map { try Self.encoder.encode($0) }
        if handle.executor.isCurrent {
            try handle.run(sql, values) { onRow($0) }
        } else {
            // Called from outside the engine's transaction or read: the statement still runs on the connection's thread.
            try await withTaskExecutorPreference(handle.executor) { try handle.run(sql, values) { onRow($0) } }
        }
    }
}
