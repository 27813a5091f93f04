import Hummingbird
import RichPushCore
import RichPushStore

/// `POST /api/users` (admin) and `GET /api/users/me`.
struct UserController {
    let gateway: Gateway

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("users", use: create)
        group.get("users/me", use: me)
    }

    struct CreateRequest: Decodable {
        var username: String
        var password: String
        var role: String?
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        try context.caller().require(.admin, to: "create users")
        let body = try await request.decodeJSON(CreateRequest.self, limit: gateway.configuration.maximumJSONBytes)
        guard Identifier.isValid(body.username) else {
            throw APIError.unprocessable("user.invalidName", "A username has 1 to 64 letters, digits or _ . @ -.")
        }
        if let problem = PasswordHasher.problem(with: body.password) { throw APIError.unprocessable("user.invalidPassword", problem) }
        let roleText = body.role ?? Role.member.rawValue
        guard let role = Role(rawValue: roleText) else {
            throw APIError.unprocessable("user.invalidRole", "role must be one of admin, marketer, member.")
        }
        let hash = try await gateway.hasher.hash(body.password)
        do {
            let user = try await gateway.store.createUser(username: body.username, passwordHash: hash, role: role)
            context.logger.info("user created", metadata: ["richpush.username": "\(user.username)", "richpush.role": "\(role)"])
            return try UserJSON(username: user.username, role: user.role)
                .jsonResponse(status: .created, headers: [.location: "/api/users/\(user.username)"])
        } catch StoreError.duplicate {
            throw APIError.conflict("user.exists", "A user named \(body.username) already exists.")
        }
    }

    @Sendable func me(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.caller()
        return try UserJSON(username: caller.username, role: caller.role).jsonResponse()
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
