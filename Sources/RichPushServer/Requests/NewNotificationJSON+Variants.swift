import Foundation
import RichPushCore

/// The arms of an A/B test, each checked over the notification's fields.
extension NewNotificationJSON.VariantJSON {
    /// The campaign's fields with this variant's over them, as a notification's fields go over a template's.
    func overlaid(on campaign: CampaignJSON) -> CampaignJSON {
        CampaignJSON(
            message: message, title: title, sound: sound, badge: badge, category: category, threadId: threadId, data: data,
            localizations: localizations, actions: actions
        ).overlaid(on: campaign)
    }

    /// The variants `requests` ask for over `campaign`, each checked as a notification's own fields are (sizes
    /// included), or the first problem found, naming the variant.
    static func checked(
        _ requests: [Self], over campaign: CampaignJSON, by caller: AuthenticatedUser,
        imageExists: (Int64) async throws -> Bool
    ) async throws -> [Variant] {
        guard Variant.counts.contains(requests.count) else {
            throw invalid("An A/B test has \(Variant.counts.lowerBound) to \(Variant.counts.upperBound) variants, not \(requests.count).")
        }
        var names: Set<String> = []
        var variants: [Variant] = []
        for (index, request) in requests.enumerated() {
            guard let name = request.name, Variant.isName(name) else {
                throw invalid("variants[\(index)].name must be 1 to 32 of letters, digits, space, _ . and -, starting with a letter or digit.")
            }
            guard names.insert(name.lowercased()).inserted else { throw invalid("Two variants are named \(name).") }
            guard let weight = request.weight, (0...100).contains(weight) else {
                throw invalid("variants[\(index)].weight must be a percentage from 0 to 100.")
            }
            do {
                let checked = try await request.overlaid(on: campaign).checked(by: caller, imageExists: imageExists)
                variants.append(Variant(name: name, weight: weight, message: checked.message, content: checked.content))
            } catch let error as APIError {
                throw APIError(error.status, code: error.code, message: "Variant \(name): \(error.message)")
            }
        }
        let total = variants.reduce(0) { $0 + $1.weight }
        guard total == 100 else { throw invalid("The variants' weights add up to \(total); they must add up to 100.") }
        return variants
    }

    private static func invalid(_ message: String) -> APIError {
        APIError.unprocessable("notification.invalidVariants", message)
    }
}
