import Foundation
import Hummingbird
import RichPushCore
import RichPushStore

/// `POST`/`GET /api/tokens` and `DELETE /api/tokens/{id}`: API tokens for scripts and daemons, so none of them has to
/// hold a user's password. A token's secret is shown once, in the answer that creates it.
struct TokenController {
    let store: Store
    let cache: CredentialCache

    /// Enough for every script and device of one user; a runaway loop creating tokens stops here.
    static let maximumTokensPerUser = 100

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("tokens", use: create)
        group.get("tokens", use: list)
        group.delete("tokens/:id", use: revoke)
    }

    struct CreateRequest: Decodable {
        var name: String
        var role: String?
        var expiresAt: String?
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await request.decode(as: CreateRequest.self, context: context)
        let name = body.name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.unprocessable("token.invalidName", "A token's name has 1 to 100 characters and no control characters.")
        }
        let role =
            try body.role.map { text in
                guard let role = Role(rawValue: text) else {
                    throw APIError.unprocessable("token.invalidRole", "role must be one of admin, marketer, member.")
                }
                return role
            } ?? caller.role
        guard caller.role.includes(role) else {
            throw APIError.forbidden("A \(caller.role.rawValue) may create tokens of its own role or a lesser one, not \(role.rawValue).")
        }
        let now = Date.now
        let expiresAt = try body.expiresAt.map { text in
            guard let date = Timestamp.parse(text), date > now else {
                throw APIError.unprocessable("token.invalidExpiry", "expiresAt must be an RFC 3339 time with a zone, in the future.")
            }
            return date
        }
        guard try await store.tokens(ownedBy: caller.username).count < Self.maximumTokensPerUser else {
            throw APIError.unprocessable("token.limit", "A user holds at most \(Self.maximumTokensPerUser) tokens; revoke one first.")
        }
        let secret = APIToken.generate()
        let record = try await store.createToken(
            id: UUID().uuidString.lowercased(), owner: caller.username, name: name, role: role, secretDigest: APIToken.digest(secret),
            expiresAt: expiresAt, now: now)
        await store.audit(.tokenCreated, target: record.id, details: "\(name), \(role.rawValue)", by: caller, logger: context.logger)
        return try TokenJSON(record, token: secret).jsonResponse(status: .created, headers: [.location: "/api/tokens/\(record.id)"])
    }

    /// The caller's tokens; an admin's answer holds everyone's.
    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> ListJSON<TokenJSON> {
        let caller = try context.caller()
        let tokens = try await store.tokens(ownedBy: caller.role == .admin ? nil : caller.username)
        return ListJSON(items: tokens.map { TokenJSON($0) })
    }

    /// Refused at once on this process; every other process rechecks its cached tokens within the credential
    /// cache's revalidation interval (2 s).
    @Sendable func revoke(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.caller()
        let id = context.parameters.get("id") ?? ""
        guard let record = try await store.deleteToken(id: id, ownedBy: caller.role == .admin ? nil : caller.username) else {
            throw APIError.notFound("token.notFound", "There is no token \(id.prefix(64)) of yours.")
        }
        cache.forget(tokenId: record.id)
        await store.audit(.tokenRevoked, target: record.id, details: "\(record.name) of \(record.owner)", by: caller, logger: context.logger)
        return Response(status: .noContent)
    }
}
