/// Whose fetch of the payload a delivery's `fetchedAt` is.
public enum FetchedBy: String, Codable, Sendable, CaseIterable {
    /// The delivery's own installation named itself in the fetch (`?installationId=`, or its signed link).
    case installation
    /// Its user fetched it, from another of her devices or without naming one.
    case user
}
