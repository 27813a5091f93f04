import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import RichPushCore
import RichPushStore

/// Device registrations: `PUT`, `GET`, `DELETE /api/installations/{installationId}` and the list.
struct InstallationController {
    let installations: any InstallationRepository
    let users: any UserRepository
    let registrar: Registrar

    /// The most installations one import registers, in one transaction.
    static let maximumImport = 10_000

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("installations", use: list)
        group.post("installations/import", use: importMany)
        group.put("installations/:installationId", use: upsert)
        group.get("installations/:installationId", use: get)
        group.delete("installations/:installationId", use: delete)
    }

    @Sendable func upsert(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let id = try InstallationRequest.validId(context.parameters.require("installationId"))
        let body = try await request.decode(as: InstallationRequest.self, context: context)
        let (stored, created) = try await registrar.register(
            try body.record(id: id, owner: caller.username, now: .now, rules: registrar.rules))
        return EditedResponse(status: created ? .created : .ok, headers: [.location: "/api/installations/\(id)"], response: InstallationJSON(stored))
    }

    struct ImportRequest: LargeRequestBody, RequestErrorDomain {
        static let errorDomain = "installation"
        static let maximumBodyBytes = 16 * 1024 * 1024
        var installations: [InstallationRequest]
    }

    /// `POST /api/installations/import` (admin): registrations moved from another push provider, each entry naming
    /// its owner, all stored in one transaction or none.
    @Sendable func importMany(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        try context.requireIdentity().require(.admin, to: "import installations")
        let body = try await request.decode(as: ImportRequest.self, context: context)
        guard (1...Self.maximumImport).contains(body.installations.count) else {
            throw APIError.unprocessable("installation.importSize", "An import holds 1 to \(Self.maximumImport) installations.")
        }
        var owners: [String: Bool] = [:]
        let now = Date.now
        var records: [InstallationRecord] = []
        for (index, entry) in body.installations.enumerated() {
            do {
                guard let id = entry.installationId, let owner = entry.owner else {
                    throw APIError.unprocessable("request.missingField", "installationId and owner are required.")
                }
                if owners[owner] == nil { owners[owner] = try await users.user(named: owner) != nil }
                guard owners[owner] == true else {
                    throw APIError.unprocessable("installation.unknownOwner", "There is no user \(owner.prefix(64)).")
                }
                records.append(
                    try entry.record(
                        id: try InstallationRequest.validId(id), owner: owner, now: now,
                        rules: registrar.rules))
            } catch let error as APIError {
                throw APIError(error.status, code: error.code, message: "installations[\(index)]: \(error.message)")
            }
        }
        do {
            let created = try await installations.importAll(records)
            registrar.dispatcherDoorbell.ring()
            context.logger.info("installations imported", metadata: ["richpush.count": "\(records.count)"])
            return InstallationImportJSON(imported: records.count, created: created)
        } catch StoreError.installationOwnedByAnother {
            throw APIError.conflict("installation.taken", "An installation of the import is registered by another user; nothing was imported.")
        } catch StoreError.channelTaken {
            throw APIError.conflict(
                "installation.channelTaken", "A direct pushChannel of the import is registered by another user; nothing was imported.")
        }
    }

    @Sendable func get(_ request: Request, context: RichPushRequestContext) async throws -> InstallationJSON {
        InstallationJSON(try await visibleInstallation(context))
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let installation = try await visibleInstallation(context)
        try await installations.delete(id: installation.id, now: .now)
        registrar.dispatcherDoorbell.ring()
        return Response(status: .noContent)
    }

    /// An admin sees every installation (`?owner=` narrows it), anyone else their own.
    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> ListJSON<InstallationJSON> {
        let caller = try context.requireIdentity()
        let owner = caller.role == .admin ? request.uri.queryParameters.get("owner") : caller.username
        let limit = Int(try request.uri.integer("limit", in: 1...1000) ?? 200)
        return ListJSON(items: try await installations.list(owner: owner, limit: limit).map(InstallationJSON.init))
    }

    private func visibleInstallation(_ context: RichPushRequestContext) async throws -> InstallationRecord {
        let caller = try context.requireIdentity()
        let id = try InstallationRequest.validId(context.parameters.require("installationId"))
        guard let installation = try await installations.installation(id: id), installation.owner == caller.username || caller.role == .admin
        else { throw APIError.notFound("installation.notFound", "There is no installation \(id).") }
        return installation
    }
}
