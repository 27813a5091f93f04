/// The kind of rich payload a notification carries; travels as `richType` in every push.
public enum RichType: String, Codable, Sendable, CaseIterable {
    case img
    case url
    case text
}
