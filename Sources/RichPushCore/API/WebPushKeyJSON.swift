/// `GET /api/webpush/key`: the VAPID public key a web app passes to `pushManager.subscribe` as
/// `applicationServerKey`.
public struct WebPushKeyJSON: Codable, Sendable, Equatable {
    /// The uncompressed P-256 point, base64url.
    public var publicKey: String

    public init(publicKey: String) {
        self.publicKey = publicKey
    }
}
