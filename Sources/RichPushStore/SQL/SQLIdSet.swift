import SQLKit

/// A predicate that a column holds one of a set of row ids: runs of consecutive ids become `BETWEEN` ranges and the
/// rest one `IN` list, all written as integer literals.
///
/// The deliveries of one batch of a fan-out mostly run on, so a statement over hundreds of them costs a few terms
/// instead of a bind each, whose encoding and parsing were most of what such a statement cost. Integers written as
/// literals cannot carry anything but a number.
struct SQLIdSet: SQLExpression {
    private let column: SQLColumn
    private let ranges: [ClosedRange<Int64>]
    private let singles: [Int64]

    /// `table` qualifies the column where a statement reads several tables.
    init(_ column: String, of table: String? = nil, in ids: some Sequence<Int64>) {
        self.init(column, of: table, ascending: ids.sorted())
    }

    /// The same, of ids already in ascending order.
    init(_ column: String, of table: String? = nil, ascending ids: some Sequence<Int64>) {
        var ranges: [ClosedRange<Int64>] = []
        var singles: [Int64] = []
        var run: ClosedRange<Int64>?
        func close(_ run: ClosedRange<Int64>) {
            if run.count == 1 { singles.append(run.lowerBound) } else { ranges.append(run) }
        }
        for id in ids {
            if let current = run, id <= current.upperBound + 1 {
                // The next id of the run, or one named twice.
                run = current.lowerBound...id
            } else {
                run.map(close)
                run = id...id
            }
        }
        run.map(close)
        self.column = SQLColumn(column, table: table)
        self.ranges = ranges
        self.singles = singles
    }

    func serialize(to serializer: inout SQLSerializer) {
        var terms: [any SQLExpression] = ranges.map { range in
            SQLBetween(operand: column, lowerBound: Self.literal(range.lowerBound), upperBound: Self.literal(range.upperBound))
        }
        if !singles.isEmpty {
            terms.append(SQLBinaryExpression(column, .in, SQLGroupExpression(singles.map(Self.literal))))
        }
        // No id matches nothing; `IN ()` is not valid SQL everywhere.
        guard !terms.isEmpty else { return SQLLiteral.boolean(false).serialize(to: &serializer) }
        SQLGroupExpression(SQLList(terms, separator: SQLRaw(" OR "))).serialize(to: &serializer)
    }

    private static func literal(_ id: Int64) -> SQLLiteral {
        .numeric(String(id))
    }
}
