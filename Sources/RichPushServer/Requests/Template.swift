import Foundation
import Hummingbird
import RichPushCore
import RichPushStore

/// One version of a template, as the API shows it and notifications use it: its name, version and description
/// beside the campaign's fields.
struct Template: ResponseEncodable {
    var name: String
    var version: Int
    var description: String?
    var fields: CampaignJSON
    var createdBy: String
    var createdAt: Date

    init(_ record: TemplateRecord) throws {
        name = record.name
        version = record.version
        description = record.description
        fields = try JSONDecoder().decode(CampaignJSON.self, from: Data(record.fields.utf8))
        createdBy = record.createdBy
        createdAt = record.createdAt
    }

    enum CodingKeys: String, CodingKey { case name, version, description, createdBy, createdAt }

    func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(createdBy, forKey: .createdBy)
        try container.encode(Timestamp.format(createdAt), forKey: .createdAt)
    }

    /// The most a template's fields take as JSON: half a request body, room for a long text payload, and a page of a
    /// hundred templates stays a few megabytes.
    static let maximumBytes = 32 * 1024

    /// `[a-z0-9-]{1,64}`.
    static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "-") }
    }

    /// The fields as stored, once what can be checked before the placeholders are filled in holds: the placeholders
    /// parse, the audience, lifetime, sound, badge, category, thread and buttons are valid (the rich type, push style
    /// and interruption level were decoded as such). The rest is checked by each notification.
    static func checked(_ fields: CampaignJSON, description: String?) throws -> String {
        if let description, description.count > 1000 {
            throw APIError.unprocessable("template.invalidDescription", "description must be at most 1000 characters.")
        }
        try fields.checkPlaceholders()
        if let audience = fields.audience {
            do {
                _ = try TagExpression(parsing: audience)
            } catch {
                throw APIError.badRequest("audience.invalid", "The audience is not a valid tag expression: \(error).")
            }
        }
        _ = try fields.lifetime()
        _ = try fields.fetchDeadline(style: fields.pushStyle ?? .silent)
        _ = try fields.checkedDeliveryRate()
        try fields.checkPlainValues()
        try fields.checkCounts()
        _ = try fields.actions.map(CampaignJSON.checkedActions)
        let json = try JSONEncoder.compact.encode(fields)
        guard json.count <= maximumBytes else {
            throw APIError.unprocessable(
                "template.tooLarge", "A template's fields take at most \(maximumBytes / 1024) KiB as JSON, not \(json.count / 1024) KiB.")
        }
        return String(decoding: json, as: UTF8.self)
    }
}
