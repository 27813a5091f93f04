import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// A notification's results: the list of its deliveries (as JSON pages or one streamed CSV file) and its timeline.
struct ResultsController {
    let notifications: any NotificationRepository
    let results: any ResultRepository
    let fetches: FetchRecorder

    /// Rows read from the store per page of a CSV export: what the export holds in memory at once.
    static let exportPage = 1000
    static let maximumBuckets = 10_000

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("notifications/:id/deliveries", use: deliveries)
        group.get("notifications/:id/timeline", use: timeline)
    }

    @Sendable func deliveries(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let id = try await campaign(context, to: "read the deliveries of notifications").id
        let after = try request.uri.integer("after", in: 0...Int64.max) ?? 0
        if wantsCSV(request) { return export(id, after: after) }
        let limit = Int(try request.uri.integer("limit", in: 1...1000) ?? 100)
        await fetches.flushed()
        let page = try await results.deliveryResults(notificationId: id, after: after, limit: limit + 1)
        let items = page.prefix(limit).map(DeliveryResultJSON.init)
        return try PageJSON(items: Array(items), next: page.count > limit ? page[limit - 1].deliveryId : nil).response(
            from: request, context: context)
    }

    @Sendable func timeline(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let record = try await campaign(context, to: "read the timeline of notifications")
        let step = try request.uri.integer("step", in: 1...604_800) ?? 60
        let now = Date.now
        let span = max(0, now.timeIntervalSince(record.createdAt))
        guard span / Double(step) < Double(Self.maximumBuckets) else {
            throw APIError.unprocessable(
                "timeline.tooManyBuckets",
                "A step of \(step) s makes more than \(Self.maximumBuckets) buckets since the notification was created; choose a larger step.")
        }
        await fetches.flushed()
        let buckets = try await results.timeline(notificationId: record.id, from: record.createdAt, to: now, step: TimeInterval(step))
        return TimelineJSON(step: Int(step), buckets: buckets.map(TimelineJSON.Bucket.init))
    }

    /// The path's notification, for a marketer or admin.
    private func campaign(_ context: RichPushRequestContext, to action: String) async throws -> NotificationRecord {
        try context.requireIdentity().require(.marketer, to: action)
        let id = try context.id()
        guard let record = try await notifications.notification(id: id) else {
            throw APIError.notFound("notification.notFound", "There is no notification \(id).")
        }
        return record
    }

    private func wantsCSV(_ request: Request) -> Bool {
        if let format = request.uri.queryParameters.get("format") { return format == "csv" }
        return request.headers[.accept]?.lowercased().contains("text/csv") ?? false
    }

    /// Every delivery after `after` as CSV, read and written a page at a time so an export of any size holds one
    /// page in memory.
    private func export(_ id: Int64, after: Int64) -> Response {
        let body = ResponseBody { writer in
            await fetches.flushed()
            try await writer.write(ByteBuffer(string: CSVRow.line(DeliveryResultJSON.csvHeader)))
            var cursor = after
            while true {
                let page = try await results.deliveryResults(notificationId: id, after: cursor, limit: Self.exportPage)
                guard let last = page.last else { break }
                var text = ""
                for result in page { text += CSVRow.line(DeliveryResultJSON(result).csvFields) }
                try await writer.write(ByteBuffer(string: text))
                cursor = last.deliveryId
                if page.count < Self.exportPage { break }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8; header=present",
                .contentDisposition: "attachment; filename=\"notification-\(id)-deliveries.csv\"",
            ],
            body: body)
    }
}
