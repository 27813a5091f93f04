/// Whether the user has read a notification, synced across the user's devices.
public enum ReadState: String, Codable, Sendable, CaseIterable {
    case unread
    case read
}

/// What the user did with a notification's alert, synced across the user's devices.
public enum UserActionState: String, Codable, Sendable, CaseIterable {
    case noInteraction
    case activated
    case dismissed
}

/// What a device reports having done with a notification, beyond the hub's hand-off.
public enum ReceiptEvent: String, Codable, Sendable, CaseIterable {
    case displayed
}
