import Foundation
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// `POST`/`GET`/`DELETE /api/session`: a browser signs in once, with Basic credentials or a token, and holds an
/// `HttpOnly` cookie from then on, which `fetch` and `EventSource` send by themselves.
///
/// The cookie holds an API token named "browser session" that expires with it, so a session is listed, refused
/// when its owner goes and revoked like any token; signing out revokes it on every process.
struct SessionController {
    let tokens: any TokenRepository
    let cache: CredentialCache
    /// Whether the gateway serves HTTPS, so the cookie is marked `Secure`.
    let overTLS: Bool

    /// A session made with a password, or with another such session: it acts as the password.
    static let tokenName = "browser session"
    /// A session made with an API token: it is that token, to the day it expires and in what it may make.
    static let tokenSessionName = "browser session from a token"
    /// The names only sessions carry: a session made with a password is known by its name, so no other token may
    /// take one (a token of a script would otherwise act as a password).
    static let tokenNames: Set<String> = [tokenName, tokenSessionName]

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("session", use: create)
        group.get("session", use: describe)
        group.delete("session", use: end)
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        let now = Date.now
        var expiresAt = now.addingTimeInterval(SessionCookie.lifetime)
        if let limit = caller.tokenExpiresAt { expiresAt = min(expiresAt, limit) }
        try await makeRoom(for: caller, now: now)
        let token = APIToken.generate()
        let id = UUID().uuidString.lowercased()
        let name = caller.tokenId == nil || caller.inBrowserSession ? Self.tokenName : Self.tokenSessionName
        _ = try await tokens.create(
            id: id, owner: caller.username, name: name, role: caller.role, secretDigest: APIToken.digest(token),
            expiresAt: expiresAt, audit: caller.audit(.tokenCreated, target: id, details: "\(name), \(caller.role.rawValue)"),
            now: now)
        let seconds = max(1, Int(expiresAt.timeIntervalSince(now)))
        return Response(
            status: .noContent,
            headers: [
                .setCookie: SessionCookie.setting(token, seconds: seconds, secure: overTLS), SessionCookie.csrfHeader: SessionCookie.csrf(for: token),
                .cacheControl: "no-store",
            ])
    }

    @Sendable func describe(_ request: Request, context: RichPushRequestContext) async throws -> SessionJSON {
        let (caller, token) = try session(of: request, context: context)
        return SessionJSON(username: caller.username, role: caller.role, csrf: SessionCookie.csrf(for: token))
    }

    @Sendable func end(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let (caller, _) = try session(of: request, context: context)
        if let tokenId = caller.tokenId { try await revoke(tokenId, by: caller, because: "signed out", now: .now) }
        return Response(status: .noContent, headers: [.setCookie: SessionCookie.clearing(secure: overTLS)])
    }

    /// The caller and the session token, when the request was signed in by the session's cookie.
    private func session(of request: Request, context: RichPushRequestContext) throws -> (AuthenticatedUser, String) {
        let caller = try context.requireIdentity()
        guard let token = SessionCookie.token(in: request.headers[.cookie]),
            request.headers[.authorization].flatMap(APIToken.bearer) == token
        else {
            throw APIError.notFound("session.none", "This request carries no session cookie: POST /api/session signs a browser in.")
        }
        return (caller, token)
    }

    /// A user at the limit of tokens loses the oldest of its sessions rather than being refused another sign-in.
    private func makeRoom(for caller: AuthenticatedUser, now: Date) async throws {
        let held = try await tokens.list(ownedBy: caller.username, roleAtMost: nil)
        guard held.count >= TokenController.maximumTokensPerUser else { return }
        guard let oldest = held.filter({ Self.tokenNames.contains($0.name) }).min(by: { $0.createdAt < $1.createdAt }) else {
            throw TokenController.limitReached
        }
        try await revoke(oldest.id, by: caller, because: "the oldest session", now: now)
    }

    /// Removes the session token `id` of `caller` and forgets it on this process at once.
    private func revoke(_ id: String, by caller: AuthenticatedUser, because reason: String, now: Date) async throws {
        _ = try await tokens.delete(
            id: id, ownedBy: caller.username, roleAtMost: nil,
            audit: { caller.audit(.tokenRevoked, target: $0.id, details: "\($0.name) of \($0.owner), \(reason)") }, now: now)
        cache.forget(tokenId: id)
    }
}
