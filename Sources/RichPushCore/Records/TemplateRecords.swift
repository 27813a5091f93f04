#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One version of a template: the fields of a notification, some holding Mustache placeholders.
public struct TemplateRecord: Sendable, Equatable {
    public var name: String
    public var version: Int
    public var description: String?
    /// The template's fields as JSON, as the gateway's template request holds them.
    public var fields: String
    public var createdBy: String
    public var createdAt: Date

    public init(name: String, version: Int, description: String? = nil, fields: String, createdBy: String, createdAt: Date) {
        self.name = name
        self.version = version
        self.description = description
        self.fields = fields
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

/// Which template, and which version of it, a notification was made from.
public struct TemplateReference: Sendable, Equatable {
    public var name: String
    public var version: Int

    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }
}
