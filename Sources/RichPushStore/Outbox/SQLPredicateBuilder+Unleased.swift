import SQLKit

extension SQLPredicateBuilder {
    /// Deliveries no lease in their row holds at `nowMs`: never leased, or leased until before it.
    func unleased(at nowMs: Int64) -> Self {
        self.where { $0.where("lease_until", .is, SQLLiteral.null).orWhere("lease_until", .lessThan, nowMs) }
    }
}
