/// How the push looks on iOS: a content-available background push, or a visible alert a service extension enriches.
public enum PushStyle: String, Codable, Sendable, CaseIterable {
    case silent
    case alert
}
