import Foundation
import SQLiteNIO
// SQLiteNIO's own copy of the SQLite library, so this connection and SQLiteNIO's share one library and its locks.
import VaporCSQLite

/// Why SQLite refused a statement, in its own words.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    var description: String { "SQLite error \(code): \(message)" }

    /// Another connection holds the lock this one asked for; connections open with extended result codes, whose low
    /// byte is the primary one.
    var isBusy: Bool { code & 0xff == SQLITE_BUSY }

    /// A file another connection removed first: two processes opening a new database at once may both go to remove
    /// its rollback journal while the first turns WAL on. Asking again finds the file as the other left it.
    var isRemovedByAnother: Bool { code == SQLITE_IOERR | (23 << 8) }  // SQLITE_IOERR_DELETE_NOENT, a macro Swift cannot import

    /// The disk is full: a page, the log or the shared-memory index could not grow.
    var isFull: Bool { code & 0xff == SQLITE_FULL || code == SQLITE_IOERR | (19 << 8) }  // SQLITE_IOERR_SHMSIZE
}

/// One connection to the database file whose statements run to completion on the thread of its own executor.
///
/// SQLiteNIO runs every statement as a job on a thread pool and then resumes its caller on another thread: a
/// transaction of six statements waits for a dozen thread wake-ups, and on a machine whose cores are busy with the
/// fan-out those took longer than the statements. A task that prefers this connection's executor runs its whole
/// transaction on one thread instead. Statements are prepared once per SQL text and kept for the next use.
final class SQLiteHandle: @unchecked Sendable {
    let executor = ThreadExecutor()
    // Touched only on the executor's thread, which is what makes this class sendable.
    private var raw: OpaquePointer?
    private var prepared: [String: OpaquePointer] = [:]
    private static let preparedLimit = 64

    /// Opens (creating if needed) the database file at `path`.
    init(path: String) throws {
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        var handle: OpaquePointer?
        let code = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite_nio_sqlite3_close_v2(handle)
            throw SQLiteFailure(code: code, message: "cannot open \(path): \(message)")
        }
        raw = handle
    }

    /// Runs `sql` with `binds` and hands each result row to `onRow`; called on the executor's thread only.
    func run(_ sql: String, _ binds: [SQLiteData], _ onRow: (SQLiteResultRow) throws -> Void) throws {
        precondition(executor.isCurrent, "an SQLite connection used off its thread")
        guard let raw else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }
        let statement = try statement(for: sql, on: raw)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (index, bind) in binds.enumerated() {
            try check(bind.bind(to: statement, at: Int32(index + 1)), on: raw)
        }
        var columns: SQLiteColumnNames?
        while true {
            let code = sqlite_nio_sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                guard code == SQLITE_DONE else { throw failure(code, on: raw) }
                return
            }
            let names = columns ?? SQLiteColumnNames(of: statement)
            columns = names
            try onRow(SQLiteResultRow(columns: names, values: (0..<Int32(names.names.count)).map { SQLiteData(column: $0, of: statement) }))
        }
    }

    /// Finalizes every statement and closes the connection; called on the executor's thread only.
    func close() throws {
        precondition(executor.isCurrent, "an SQLite connection used off its thread")
        for statement in prepared.values { sqlite_nio_sqlite3_finalize(statement) }
        prepared = [:]
        guard let raw else { return }
        self.raw = nil
        let code = sqlite_nio_sqlite3_close_v2(raw)
        guard code == SQLITE_OK else { throw SQLiteFailure(code: code, message: "cannot close the database") }
    }

    private func statement(for sql: String, on raw: OpaquePointer) throws -> OpaquePointer {
        if let statement = prepared[sql] { return statement }
        if prepared.count >= Self.preparedLimit, let (oldest, statement) = prepared.first {
            sqlite_nio_sqlite3_finalize(statement)
            prepared[oldest] = nil
        }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code, on: raw) }
        prepared[sql] = statement
        return statement
    }

    private func check(_ code: Int32, on raw: OpaquePointer) throws {
        guard code == SQLITE_OK else { throw failure(code, on: raw) }
    }

    private func failure(_ code: Int32, on raw: OpaquePointer) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite_nio_sqlite3_errmsg(raw)))
    }
}

/// The column names of one statement's result, shared by its rows.
final class SQLiteColumnNames: Sendable {
    let names: [String]

    init(of statement: OpaquePointer) {
        names = (0..<sqlite_nio_sqlite3_column_count(statement)).map { column in
            sqlite_nio_sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
    }

    func index(of name: String) -> Int? {
        names.firstIndex(of: name)
    }
}

extension SQLiteData {
    /// The value of `column` in the row `statement` stands on.
    init(column: Int32, of statement: OpaquePointer) {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            self = .integer(SQLiteInt64(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT:
            self = .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let bytes = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            let text = sqlite_nio_sqlite3_column_text(statement, column)
            self = .text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: bytes), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let bytes = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            let blob = sqlite_nio_sqlite3_column_blob(statement, column)
            self = .blob(blob.map { ByteBuffer(bytes: UnsafeRawBufferPointer(start: $0, count: bytes)) } ?? ByteBuffer())
        default:
            self = .null
        }
    }

    /// Binds this value to parameter `index` of `statement`; answers SQLite's result code.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .integer(let value):
            sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
        case .float(let value):
            sqlite_nio_sqlite3_bind_double(statement, index, value)
        case .text(let value):
            sqlite_nio_sqlite3_bind_text64(statement, index, value, UInt64(value.utf8.count), SQLiteHandle.transient, UInt8(SQLITE_UTF8))
        case .blob(let value):
            value.withUnsafeReadableBytes {
                sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), SQLiteHandle.transient)
            }
        case .null:
            sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }
}

extension SQLiteHandle {
    /// SQLite copies a value bound with this destructor before the bind returns.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
