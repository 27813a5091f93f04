/// A page of a list that goes on (notifications, deliveries, the audit trail, templates): `next` is the cursor of the
/// following page (`before` or `after`: an id, or a template's name), null on the last.
public struct PageJSON<Item, Cursor: Sendable & Codable> {
    public var items: [Item]
    public var next: Cursor?

    public init(items: [Item], next: Cursor?) {
        self.items = items
        self.next = next
    }

    enum CodingKeys: String, CodingKey { case items, next }
}

extension PageJSON: Encodable where Item: Encodable {
    // `next` is written even when null, so a client tells the last page from a field it did not read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(next, forKey: .next)
    }
}

extension PageJSON: Decodable where Item: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([Item].self, forKey: .items)
        next = try container.decodeIfPresent(Cursor.self, forKey: .next)
    }
}

extension PageJSON: Sendable where Item: Sendable {}
extension PageJSON: Equatable where Item: Equatable, Cursor: Equatable {}
