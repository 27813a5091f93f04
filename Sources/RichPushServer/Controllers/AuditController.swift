import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// `GET /api/audit?limit=&before=` (admins): who did what and when, newest first, a page at a time; `next` is the
/// `before` of the following page.
struct AuditController {
    let audit: any AuditLog

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("audit", use: list)
    }

    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        try context.requireIdentity().require(.admin, to: "read the audit trail")
        let before = try request.uri.integer("before", in: 1...Int64.max)
        let limit = Int(try request.uri.integer("limit", in: 1...1000) ?? 100)
        let page = try await audit.events(before: before, limit: limit + 1)
        let items = page.prefix(limit).map(AuditEventJSON.init)
        return PageJSON(items: Array(items), next: page.count > limit ? page[limit - 1].id : nil)
    }
}
