import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import RichPushCore
import RichPushStore

/// `POST /api/users` (admin), `GET /api/users/me`, `PUT /api/users/{username}/password` (admin or the user) and
/// `DELETE /api/users/{username}` (admin).
///
/// A changed password or a removed user takes effect on every gateway process sharing the store within the
/// credential cache's revalidation interval: each process rereads the stored hash of a cached sign-in that often.
struct UserController {
    let users: any UserRepository
    let hasher: PasswordHasher
    let credentials: CredentialCache

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("users", use: create)
        group.get("users/me", use: me)
        group.put("users/:username/password", use: changePassword)
        group.delete("users/:username", use: delete)
    }

    struct CreateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "user"
        var username: String
        var password: String
        var role: Role?
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.admin, to: "create users")
        let body = try await request.decode(as: CreateRequest.self, context: context)
        guard Identifier.isValid(body.username) else {
            throw APIError.unprocessable("user.invalidName", "A username has 1 to 64 letters, digits or _ . @ -.")
        }
        if let problem = PasswordHasher.problem(with: body.password) { throw APIError.unprocessable("user.invalidPassword", problem) }
        let role = body.role ?? .member
        let hash = try await hasher.hash(body.password)
        do {
            let user = try await users.create(
                username: body.username, passwordHash: hash, role: role,
                audit: caller.audit(.userCreated, target: body.username, details: role.rawValue), now: .now)
            context.logger.info("user created", metadata: ["richpush.username": "\(user.username)", "richpush.role": "\(role)"])
            return EditedResponse(
                status: .created, headers: [.location: "/api/users/\(user.username)"], response: UserJSON(username: user.username, role: user.role))
        } catch StoreError.duplicate {
            throw APIError.conflict("user.exists", "A user named \(body.username) already exists.")
        }
    }

    struct PasswordRequest: Decodable {
        var password: String
        /// The present password, which changing one's own asks for: whoever holds a signed-in console or a
        /// stolen token must not be able to lock its owner out.
        var currentPassword: String?
    }

    /// Changes a password: one's own with the current one, signed in with a password, or anyone's as an admin. A
    /// token never changes its owner's password, whatever its role.
    @Sendable func changePassword(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        let username = try context.parameters.require("username")
        let ownPassword = username == caller.username
        if ownPassword, caller.tokenId != nil {
            throw APIError.forbidden("An API token may not change its owner's password; sign in with the password to change it.")
        }
        if !ownPassword { try caller.require(.admin, to: "change another user's password") }
        let body = try await request.decode(as: PasswordRequest.self, context: context)
        if ownPassword { try await checkCurrentPassword(body.currentPassword, of: username) }
        if let problem = PasswordHasher.problem(with: body.password) { throw APIError.unprocessable("user.invalidPassword", problem) }
        let hash = try await hasher.hash(body.password)
        guard
            try await users.setPasswordHash(
                username: username, passwordHash: hash, audit: caller.audit(.userPasswordChanged, target: username), now: .now)
        else {
            throw APIError.notFound("user.notFound", "There is no user \(username.prefix(64)).")
        }
        credentials.forget(username: username)
        context.logger.info("password changed", metadata: ["richpush.username": "\(username)"])
        return Response(status: .noContent)
    }

    private func checkCurrentPassword(_ password: String?, of username: String) async throws {
        guard let password else {
            throw APIError.unprocessable("user.currentPasswordRequired", "Changing your own password needs your present one in currentPassword.")
        }
        guard let user = try await users.user(named: username), try await hasher.verify(password, hash: user.passwordHash) else {
            throw APIError(.forbidden, code: "user.wrongPassword", message: "currentPassword is not your present password.")
        }
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        try caller.require(.admin, to: "remove users")
        let username = try context.parameters.require("username")
        guard username != caller.username else {
            throw APIError.conflict("user.self", "An admin cannot remove itself; another admin can.")
        }
        guard try await users.delete(username: username, audit: caller.audit(.userRemoved, target: username), now: .now) else {
            throw APIError.notFound("user.notFound", "There is no user \(username.prefix(64)).")
        }
        credentials.forget(username: username)
        context.logger.info("user removed", metadata: ["richpush.username": "\(username)"])
        return Response(status: .noContent)
    }

    @Sendable func me(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        return UserJSON(username: caller.username, role: caller.role)
    }
}

extension AuthenticatedUser {
    /// Throws 403 unless the caller has one of `roles`.
    func require(_ roles: Role..., to action: String) throws {
        guard roles.contains(role) || role == .admin else {
            throw APIError.forbidden("The \(role.rawValue) role may not \(action).")
        }
    }
}
