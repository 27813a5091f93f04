import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// `GET /api/audiences/count?expression=…`: how many devices and people a tag expression reaches now, so a marketer
/// sees the size of a campaign (and a malformed expression's reason) before sending it.
struct AudienceController {
    let installations: any InstallationRepository

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("audiences/count", use: count)
    }

    @Sendable func count(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        try context.requireIdentity().require(.marketer, to: "count audiences")
        guard let text = request.uri.queryParameters.get("expression") else {
            throw APIError.badRequest("audience.missing", "Name the audience with ?expression=, e.g. ?expression=topic:sale.")
        }
        let expression: TagExpression
        do {
            expression = try TagExpression(parsing: text)
        } catch {
            throw APIError.badRequest("audience.invalid", "The audience is not a valid tag expression: \(error).")
        }
        let size = try await installations.audienceSize(expression)
        return AudienceCountJSON(
            expression: expression.description, installations: size.installations, recipients: size.recipients,
            platforms: Dictionary(uniqueKeysWithValues: size.installationsByPlatform.map { ($0.key.rawValue, $0.value) })
        )
    }
}
