import Foundation
import RichPushCore

// Written here because Foundation's JSONDecoder skips the fields a type does not know, and no package on the
// machine's list refuses them: a misspelled `deliverAt` must be an error, never a campaign sent at once. The JSON is
// read by JSONDecoder into a ``JSONValue`` tree; this decoder serves the request type from the tree and notes every
// key the type asks for, so that any other key, at any depth, is an unknown field.

/// Decodes a request body strictly: an unknown field, a value of the wrong JSON type or a missing field is a
/// ``RequestDecodingError`` naming the field by its path (`installations[3].platform`).
struct StrictJSONDecoder: Sendable {
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(RequestDecodingError) -> T {
        let tree: JSONValue
        do {
            tree = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .malformed
        }
        let fields = FieldUse()
        do {
            let value = try T(from: TreeDecoder(value: tree, codingPath: [], fields: fields))
            if let unknown = fields.firstUnknown() { throw RequestDecodingError.unknownField(path: unknown) }
            return value
        } catch let error as RequestDecodingError {
            throw error
        } catch DecodingError.dataCorrupted(let context) {
            throw .invalidValue(path: Self.path(context.codingPath), reason: context.debugDescription)
        } catch {
            throw .invalidValue(path: "the body", reason: "\(error)")
        }
    }

    /// `installations[3].platform`, or `the body` at the top.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "the body" : text
    }
}

/// What a request body got wrong, with the path of the field.
enum RequestDecodingError: Error, Equatable {
    case malformed
    case unknownField(path: String)
    case invalidField(path: String, expected: String, found: String)
    case missingField(path: String)
    /// The value has the right JSON type but the type refused it.
    case invalidValue(path: String, reason: String)
    /// The string names none of the values a ``JSONChoice`` takes.
    case notAChoice(path: String, field: String, choices: [String])
}

/// A JSON string that names one of a few values, an enumeration: one it does not name is refused, naming the field
/// and the values it takes.
protocol JSONChoice: Decodable {
    static var choices: [String] { get }
    init?(choice: String)
}

extension JSONChoice where Self: RawRepresentable<String> & CaseIterable {
    static var choices: [String] { allCases.map(\.rawValue) }
    init?(choice: String) { self.init(rawValue: choice) }
}

extension RichType: JSONChoice {}
extension PushStyle: JSONChoice {}
extension Role: JSONChoice {}
extension Platform: JSONChoice {}
extension ReadState: JSONChoice {}
extension UserActionState: JSONChoice {}
extension ReceiptEvent: JSONChoice {}
extension ActionKind: JSONChoice {}
extension ActionMethod: JSONChoice {}
extension InterruptionLevel: JSONChoice {}

/// The keys of every object the request type opened, and those it asked for.
private final class FieldUse {
    private struct Object {
        var path: [any CodingKey]
        var keys: [String]
        var asked: Set<String> = []
    }

    private var objects: [String: Object] = [:]
    private var order: [String] = []

    func opened(_ path: [any CodingKey], keys: some Collection<String>) {
        let name = StrictJSONDecoder.path(path)
        guard objects[name] == nil else { return }
        objects[name] = Object(path: path, keys: keys.sorted())
        order.append(name)
    }

    func asked(_ key: String, in path: [any CodingKey]) {
        objects[StrictJSONDecoder.path(path)]?.asked.insert(key)
    }

    func firstUnknown() -> String? {
        for name in order {
            guard let object = objects[name], let key = object.keys.first(where: { !object.asked.contains($0) }) else { continue }
            return StrictJSONDecoder.path(object.path + [FieldKey(key)])
        }
        return nil
    }
}

private struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
    }

    init(index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}

/// A value JSON carries directly, and the name of its JSON type for messages.
private protocol JSONScalar {
    static var expected: String { get }
    init?(json: JSONValue)
}

extension String: JSONScalar {
    static var expected: String { "a string" }
    init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self = text
    }
}

extension Bool: JSONScalar {
    static var expected: String { "a boolean" }
    init?(json: JSONValue) {
        guard case .bool(let flag) = json else { return nil }
        self = flag
    }
}

extension Double: JSONScalar {
    static var expected: String { "a number" }
    init?(json: JSONValue) {
        switch json {
        case .integer(let integer): self = Double(integer)
        case .number(let number): self = number
        default: return nil
        }
    }
}

extension Float: JSONScalar {
    static var expected: String { "a number" }
    init?(json: JSONValue) {
        guard let number = Double(json: json) else { return nil }
        self = Float(number)
    }
}

extension JSONScalar where Self: FixedWidthInteger {
    static var expected: String { "an integer from \(Self.min) to \(Self.max)" }
    init?(json: JSONValue) {
        guard case .integer(let integer) = json, let exact = Self(exactly: integer) else { return nil }
        self = exact
    }
}

extension Int: JSONScalar {}
extension Int8: JSONScalar {}
extension Int16: JSONScalar {}
extension Int32: JSONScalar {}
extension Int64: JSONScalar {}
extension UInt: JSONScalar {}
extension UInt8: JSONScalar {}
extension UInt16: JSONScalar {}
extension UInt32: JSONScalar {}
extension UInt64: JSONScalar {}

private struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let fields: FieldUse
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch(expected: "an object") }
        fields.opened(codingPath, keys: object.keys)
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath, fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw mismatch(expected: "an array") }
        return UnkeyedContainer(array: array, codingPath: codingPath, fields: fields)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath, fields: fields)
    }

    func mismatch(expected: String) -> RequestDecodingError {
        .invalidField(path: StrictJSONDecoder.path(codingPath), expected: expected, found: value.typeName)
    }

    /// `value` as `T`, a JSON scalar, a choice, a free-form JSON value passed through whole, or a type decoding itself
    /// from a nested decoder.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        if let scalar = T.self as? any JSONScalar.Type {
            guard let decoded = scalar.init(json: value) else { throw mismatch(expected: scalar.expected) }
            return decoded as! T
        }
        if let choice = T.self as? any JSONChoice.Type {
            guard case .string(let text) = value else { throw mismatch(expected: "a string") }
            guard let chosen = choice.init(choice: text) else {
                throw RequestDecodingError.notAChoice(
                    path: StrictJSONDecoder.path(codingPath), field: codingPath.last { $0.intValue == nil }?.stringValue ?? "",
                    choices: choice.choices)
            }
            return chosen as! T
        }
        return try T(from: self)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]
    let fields: FieldUse

    var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool {
        fields.asked(key.stringValue, in: codingPath)
        return object[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        fields.asked(key.stringValue, in: codingPath)
        return object[key.stringValue].map { $0 == .null } ?? true
    }

    private func child(_ key: Key) throws -> TreeDecoder {
        fields.asked(key.stringValue, in: codingPath)
        guard let value = object[key.stringValue] else {
            throw RequestDecodingError.missingField(path: StrictJSONDecoder.path(codingPath + [key]))
        }
        return TreeDecoder(value: value, codingPath: codingPath + [key], fields: fields)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(T.self) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try child(Key(stringValue: "super")!)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try child(key)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let codingPath: [any CodingKey]
    let fields: FieldUse
    var currentIndex = 0

    init(array: [JSONValue], codingPath: [any CodingKey], fields: FieldUse) {
        self.array = array
        self.codingPath = codingPath
        self.fields = fields
    }

    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    private mutating func next() throws -> TreeDecoder {
        let key = FieldKey(index: currentIndex)
        guard !isAtEnd else { throw RequestDecodingError.missingField(path: StrictJSONDecoder.path(codingPath + [key])) }
        defer { currentIndex += 1 }
        return TreeDecoder(value: array[currentIndex], codingPath: codingPath + [key], fields: fields)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(T.self) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try next()
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let fields: FieldUse

    private var decoder: TreeDecoder { TreeDecoder(value: value, codingPath: codingPath, fields: fields) }

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decode(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decode(type) }
}
