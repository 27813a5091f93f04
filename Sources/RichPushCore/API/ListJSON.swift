/// A whole list in one answer (installations, tokens, templates): `{"items": [...]}`, an object so fields can join
/// it later.
public struct ListJSON<Item> {
    public var items: [Item]

    public init(items: [Item]) {
        self.items = items
    }
}

extension ListJSON: Encodable where Item: Encodable {}
extension ListJSON: Decodable where Item: Decodable {}
extension ListJSON: Sendable where Item: Sendable {}
extension ListJSON: Equatable where Item: Equatable {}
