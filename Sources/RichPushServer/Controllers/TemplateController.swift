import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import RichPushCore
import RichPushStore

/// Reusable campaigns: `POST`/`GET /api/templates`, `GET`/`PUT`/`DELETE /api/templates/{name}` (marketers). Each `PUT`
/// stores a new version; earlier versions stay readable with `?version=N`, as notifications made from them name them.
/// The list comes a page at a time, by name; a marketer creates at most `maximumTemplatesPerUser` of them.
struct TemplateController {
    let templates: any TemplateRepository
    let maximumTemplatesPerUser: Int

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("templates", use: create)
        group.get("templates", use: list)
        group.get("templates/:name", use: get)
        group.put("templates/:name", use: update)
        group.delete("templates/:name", use: delete)
    }

    /// The body of `POST`: a name, a description and the campaign's fields.
    /// A template's fields are refused as a notification's are.
    struct CreateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "notification"
        static func refusedChoiceCode(field: String) -> String { CampaignJSON.refusedChoiceCode(field: field) }
        var name: String
        var description: String?
        var campaign: CampaignJSON

        enum CodingKeys: String, CodingKey { case name, description }

        init(from decoder: any Decoder) throws {
            campaign = try CampaignJSON(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            description = try container.decodeIfPresent(String.self, forKey: .description)
        }
    }

    /// The body of `PUT`: the same as `POST` but the name, which is the path's.
    struct UpdateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "notification"
        static func refusedChoiceCode(field: String) -> String { CampaignJSON.refusedChoiceCode(field: field) }
        var description: String?
        var campaign: CampaignJSON

        enum CodingKeys: String, CodingKey { case description }

        init(from decoder: any Decoder) throws {
            campaign = try CampaignJSON(from: decoder)
            description = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .description)
        }
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "create templates")
        let body = try await request.decode(as: CreateRequest.self, context: context)
        guard Template.isName(body.name) else {
            throw APIError.unprocessable("template.invalidName", "A template name has 1 to 64 of a-z, 0-9 and -.")
        }
        let fields = try Template.checked(body.campaign, description: body.description)
        do {
            let record = try await templates.create(
                name: body.name, description: body.description, fields: fields, createdBy: caller.username, limit: maximumTemplatesPerUser,
                audit: caller.audit(.templateChanged, target: body.name, details: "created, version 1"), now: .now)
            context.logger.info("template created", metadata: ["richpush.template": "\(record.name)"])
            return try EditedResponse(status: .created, headers: [.location: "/api/templates/\(record.name)"], response: Template(record))
        } catch StoreError.duplicate {
            throw APIError.conflict("template.exists", "A template named \(body.name) exists; PUT /api/templates/\(body.name) changes it.")
        } catch StoreError.templateLimit(let limit) {
            throw APIError.unprocessable("template.limit", "A marketer creates at most \(limit) templates; delete one first.")
        }
    }

    /// `?limit=` (1 to 100, 20 when absent) templates named after `?after=`; `next` is the `after` of the next page.
    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        try context.requireIdentity().require(.marketer, to: "read templates")
        let limit = Int(try request.uri.integer("limit", in: 1...100) ?? 20)
        let after = request.uri.queryParameters["after"].map(String.init)
        let page = try await templates.list(after: after, limit: limit + 1)
        let items = try page.prefix(limit).map(Template.init)
        return PageJSON(items: items, next: page.count > limit ? items.last?.name : nil)
    }

    @Sendable func get(_ request: Request, context: RichPushRequestContext) async throws -> Template {
        try context.requireIdentity().require(.marketer, to: "read templates")
        let name = try context.parameters.require("name")
        let version = try request.uri.integer("version", in: 1...Int64(Int32.max)).map(Int.init)
        guard let record = try await templates.template(name: name, version: version) else {
            throw APIError.notFound("template.notFound", "There is no template \(name.prefix(64))\(version.map { " version \($0)" } ?? "").")
        }
        return try Template(record)
    }

    @Sendable func update(_ request: Request, context: RichPushRequestContext) async throws -> Template {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "change templates")
        let name = try context.parameters.require("name")
        let body = try await request.decode(as: UpdateRequest.self, context: context)
        let fields = try Template.checked(body.campaign, description: body.description)
        guard
            let record = try await templates.update(
                name: name, description: body.description, fields: fields, createdBy: caller.username,
                audit: { caller.audit(.templateChanged, target: name, details: "version \($0)") }, now: .now)
        else { throw APIError.notFound("template.notFound", "There is no template \(name.prefix(64)); POST /api/templates creates it.") }
        context.logger.info("template changed", metadata: ["richpush.template": "\(name)", "richpush.version": "\(record.version)"])
        return try Template(record)
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "remove templates")
        let name = try context.parameters.require("name")
        guard try await templates.delete(name: name, audit: caller.audit(.templateChanged, target: name, details: "removed"), now: .now) else {
            throw APIError.notFound("template.notFound", "There is no template \(name.prefix(64)).")
        }
        return Response(status: .noContent)
    }
}
