import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit

/// The store's SQL on one PostgreSQL connection, as PostgresKit's `connection.sql()` runs it, with rows that decode
/// their cells straight through PostgresNIO.
///
/// Written here because PostgresKit's rows decode each cell through its `Decodable` bridge: it formats a coding path
/// string, looks the column name up twice and copies every cell of the row into an array of its own, for each value
/// read. A claim of 1,000 deliveries reads eleven columns of each: reading them took 4.5 µs of the gateway a push, in
/// the claim every push of a fan-out waits for, and 1 µs here; an export of a notification's results paid it on each
/// row as well.
/// Binds are encoded as PostgresKit does for the values that encode themselves (every one the store binds); a
/// statement with another bind, and any value without a PostgresNIO decoder, go through PostgresKit itself.
struct PostgresSession: SQLDatabase {
    let connection: PostgresConnection

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { PostgresDialect() }
    var queryLogLevel: Logger.Level? { nil }

    /// PostgresKit's own database on the same connection, for what this one does not decode or encode itself.
    private var general: some SQLDatabase { connection.sql(queryLogLevel: nil) }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        whileOpen { general.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        guard let bindings = try Self.bindings(binds) else { return try await execute(sql: query, onRow).get() }
        let columns = ColumnNames()
        let statement = PostgresQuery(unsafeSQL: sql, binds: bindings)
        _ = try await whileOpen {
            connection.query(statement, logger: logger) { row in
                let named = columns.of(row)
                onRow(PostgresSessionRow(row: row, cells: row.makeRandomAccess(), columns: named))
            }
        }.get()
    }

    /// Starts `statement` on the connection's event loop if the connection is still open there, and fails otherwise.
    ///
    /// PostgresNIO 1.33 drops a statement written to a connection that has just closed without failing it, and its
    /// caller then waits for ever (vapor/postgres-nio#487, whose fix was reverted in #501): a dispatcher whose claim
    /// was written as PostgreSQL stopped never claimed again, and the gateway could not stop. On the event loop, the
    /// check and the write happen in one turn, where the connection cannot close between them; a connection that closes
    /// after the write fails the statements it holds.
    private func whileOpen<T>(_ statement: @escaping @Sendable () -> EventLoopFuture<T>) -> EventLoopFuture<T> {
        let connection = connection
        return connection.eventLoop.flatSubmit {
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(StoreError.unavailable) }
            return statement()
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    /// The binds encoded by their own PostgresNIO encoders, nil as soon as one has none.
    private static func bindings(_ binds: [any Encodable & Sendable]) throws -> PostgresBindings? {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            guard try append(bind, to: &bindings) else { return nil }
        }
        return bindings
    }

    private static func append<Value: Encodable>(_ value: Value, to bindings: inout PostgresBindings) throws -> Bool {
        if (value as Any?) == nil {
            bindings.appendNull()
        } else if let encodable = value as? any PostgresThrowingDynamicTypeEncodable {
            try bindings.append(encodable, context: .default)
        } else {
            return false
        }
        return true
    }
}

/// The column names of the rows of one result, read from its first row; its rows arrive one after another on the
/// connection's event loop.
private final class ColumnNames: @unchecked Sendable {
    private var names: PostgresColumns?

    func of(_ row: PostgresRow) -> PostgresColumns {
        if let names { return names }
        let read = PostgresColumns(row)
        names = read
        return read
    }
}

/// The column names of one result, indexed once for all its rows.
private final class PostgresColumns: Sendable {
    let names: [String]
    private let positions: [String: Int]

    init(_ row: PostgresRow) {
        names = row.map(\.columnName)
        positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Where `column` is in each row. The store's statements name a dozen columns at most, and comparing a short name
    /// with each is cheaper than hashing it, which a claim did for every value it read.
    func position(of column: String) -> Int? {
        guard names.count > 16 else { return names.firstIndex(of: column) }
        return positions[column]
    }
}

private struct PostgresSessionRow: SQLRow {
    let row: PostgresRow
    let cells: PostgresRandomAccessRow
    let columns: PostgresColumns

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool {
        columns.position(of: column) != nil
    }

    func decodeNil(column: String) throws -> Bool {
        guard let position = columns.position(of: column) else { return true }
        return cells[position].bytes == nil
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let position = columns.position(of: column) else { throw PostgresSessionError.missingColumn(column) }
        let cell = cells[position]
        // The store reads only these four types (its `SQLRow` helpers): comparing metatypes costs far less than the
        // runtime's conformance lookup below, which a claim paid for each of its 11,000 values.
        if D.self == Int64.self { return unsafeBitCast(try cell.decode(Int64.self, context: .default), to: D.self) }
        if D.self == String.self { return unsafeBitCast(try cell.decode(String.self, context: .default), to: D.self) }
        if D.self == Int64?.self { return unsafeBitCast(try cell.decode(Int64?.self, context: .default), to: D.self) }
        if D.self == String?.self { return unsafeBitCast(try cell.decode(String?.self, context: .default), to: D.self) }
        guard let decodable = D.self as? any PostgresDecodable.Type else { return try row.sql().decode(column: column, as: D.self) }
        return try Self.decode(cell, as: decodable) as! D
    }

    private static func decode<Value: PostgresDecodable>(_ cell: PostgresCell, as type: Value.Type) throws -> Value {
        try cell.decode(Value.self, context: .default)
    }
}

enum PostgresSessionError: Error {
    case missingColumn(String)
}
