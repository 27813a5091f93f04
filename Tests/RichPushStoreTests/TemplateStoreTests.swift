import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Templates in the store")
struct TemplateStoreTests {
    @Test(arguments: Engine.allCases) func eachChangeIsANewVersionAndTheLatestIsListed(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.templates.create(name: "sale", description: nil, fields: #"{"message":"a"}"#, createdBy: "mark")
            _ = try await store.templates.create(name: "news", description: "d", fields: #"{"message":"n"}"#, createdBy: "mark")
            let second = try await store.templates.update(name: "sale", description: nil, fields: #"{"message":"b"}"#, createdBy: "mark")
            #expect(second?.version == 2)
            #expect(try await store.templates.template(name: "sale")?.fields == #"{"message":"b"}"#)
            #expect(try await store.templates.template(name: "sale", version: 1)?.fields == #"{"message":"a"}"#)
            #expect(try await store.templates.list(limit: 100).map { "\($0.name)@\($0.version)" } == ["news@1", "sale@2"])
            #expect(try await store.templates.update(name: "none", description: nil, fields: "{}", createdBy: "mark") == nil)
            await #expect(throws: StoreError.duplicate("template")) {
                _ = try await store.templates.create(name: "sale", description: nil, fields: "{}", createdBy: "mark")
            }
            #expect(try await store.templates.delete(name: "sale"))
            #expect(try await store.templates.template(name: "sale", version: 1) == nil)
        }
    }

    @Test(arguments: Engine.allCases) func aNotificationRecordsTheTemplateAndVersionItWasMadeFrom(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let created = try await store.notifications.create(
                NotificationDraft(
                    message: "30% off", payload: .text("t"), audience: try TagExpression(parsing: "username:alice"), pushStyle: .silent,
                    deliverAt: .now, expiresAt: nil, createdBy: "mark", idempotencyKey: nil,
                    template: TemplateReference(name: "winter-sale", version: 3))
            ).notification
            #expect(try await store.notifications.notification(id: created.id)?.template == TemplateReference(name: "winter-sale", version: 3))
        }
    }

    @Test func twoProcessesChangingOneTemplateAtOnceNumberTheirVersionsApart() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            _ = try await stores[0].templates.create(name: "sale", description: nil, fields: "{}", createdBy: "mark")
            let versions = try await withThrowingTaskGroup(of: Int?.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await stores[index % 2].templates.update(name: "sale", description: nil, fields: "{}", createdBy: "mark")?.version
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1 ?? 0) }
            }
            #expect(versions.sorted() == Array(2...11))
        }
    }
}
