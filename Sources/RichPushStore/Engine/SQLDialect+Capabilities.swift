import SQLKit

/// What a dialect's statements can do beyond what SQLKit describes, decided here once from its name, so each statement
/// asks for the capability it needs rather than which engine it runs on.
extension SQLDialect {
    /// Whether a statement can change rows inside a `WITH` and go on with them (PostgreSQL); SQLite cannot.
    var modifiesRowsInsideWith: Bool { name == "postgresql" }
    /// Whether the outbox's rows are keyed by `(notification_id, id)` and can be found by their physical address,
    /// `ctid`, as the migrations make them on PostgreSQL; SQLite keys them by id alone.
    var keysOutboxByNotification: Bool { name == "postgresql" }
    /// Whether a bind can be an array, unnested into rows (PostgreSQL).
    var bindsArrays: Bool { name == "postgresql" }
}
