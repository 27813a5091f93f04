import Foundation
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// `POST`/`GET /api/tokens` and `DELETE /api/tokens/{id}`: API tokens for scripts and daemons, so none of them has to
/// hold a user's password. A token's secret is shown once, in the answer that creates it.
///
/// A caller signed in with a token reaches only tokens of at most that token's role: a lesser token its owner handed
/// to a script can neither list nor revoke the owner's stronger ones, nor create one. Nor does a token it creates
/// outlive it, so a stolen token that expires cannot leave one behind that does not.
struct TokenController {
    let tokens: any TokenRepository
    let cache: CredentialCache

    /// Enough for every script and device of one user; a runaway loop creating tokens stops here.
    static let maximumTokensPerUser = 100
    static let limitReached = APIError.unprocessable(
        "token.limit", "A user holds at most \(maximumTokensPerUser) tokens; revoke one first.")

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("tokens", use: create)
        group.get("tokens", use: list)
        group.delete("tokens/:id", use: revoke)
    }

    struct CreateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "token"
        var name: String
        var role: Role?
        var expiresAt: String?
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let body = try await request.decode(as: CreateRequest.self, context: context)
        let name = body.name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.unprocessable("token.invalidName", "A token's name has 1 to 100 characters and no control characters.")
        }
        guard !SessionController.tokenNames.contains(name) else {
            throw APIError.unprocessable("token.invalidName", "\(name) names browser sessions, which POST /api/session makes.")
        }
        let role = body.role ?? caller.role
        guard caller.role.includes(role) else {
            throw APIError.forbidden("A \(caller.role.rawValue) may create tokens of its own role or a lesser one, not \(role.rawValue).")
        }
        let now = Date.now
        let expiresAt =
            try body.expiresAt.map { text in
                guard let date = Timestamp.parse(text), date > now else {
                    throw APIError.unprocessable("token.invalidExpiry", "expiresAt must be an RFC 3339 time with a zone, in the future.")
                }
                if let limit = caller.tokenExpiresAt, date > limit {
                    throw APIError.unprocessable(
                        "token.invalidExpiry", "A token creates tokens that expire no later than itself, at \(Timestamp.format(limit)).")
                }
                return date
            } ?? caller.tokenExpiresAt
        guard try await tokens.list(ownedBy: caller.username, roleAtMost: nil).count < Self.maximumTokensPerUser else {
            throw Self.limitReached
        }
        let secret = APIToken.generate()
        let id = UUID().uuidString.lowercased()
        let record = try await tokens.create(
            id: id, owner: caller.username, name: name, role: role, secretDigest: APIToken.digest(secret), expiresAt: expiresAt,
            audit: caller.audit(.tokenCreated, target: id, details: "\(name), \(role.rawValue)"), now: now)
        return EditedResponse(status: .created, headers: [.location: "/api/tokens/\(record.id)"], response: TokenJSON(record, token: secret))
    }

    /// The caller's tokens; an admin's answer holds everyone's.
    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> ListJSON<TokenJSON> {
        let caller = try context.requireIdentity()
        let tokens = try await tokens.list(ownedBy: caller.tokenOwnerScope, roleAtMost: caller.tokenRoleScope)
        return ListJSON(items: tokens.map { TokenJSON($0) })
    }

    /// Refused at once on this process; every other process rechecks its cached tokens within the credential
    /// cache's revalidation interval (2 s).
    @Sendable func revoke(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        let id = try context.parameters.require("id")
        guard
            let record = try await tokens.delete(
                id: id, ownedBy: caller.tokenOwnerScope, roleAtMost: caller.tokenRoleScope,
                audit: { caller.audit(.tokenRevoked, target: $0.id, details: "\($0.name) of \($0.owner)") }, now: .now)
        else {
            throw APIError.notFound("token.notFound", "There is no token \(id.prefix(64)) of yours.")
        }
        cache.forget(tokenId: record.id)
        return Response(status: .noContent)
    }
}

extension AuthenticatedUser {
    /// Whose tokens the caller reaches: everyone's for an admin, else its own.
    fileprivate var tokenOwnerScope: String? { role == .admin ? nil : username }

    /// The strongest role of a token the caller reaches: a token's own role, or any for a password.
    fileprivate var tokenRoleScope: Role? { tokenId == nil ? nil : role }
}
