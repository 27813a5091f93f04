import Foundation
import RichPushCore

/// One arm of an A/B test as the body gives it: a name, a weight and the visible fields its users get instead of the
/// notification's own; what it leaves out is the notification's.
struct VariantRequest: Decodable {
    var name: String?
    var weight: Int?
    var message: String?
    var title: String?
    var sound: String?
    var badge: Badge?
    var category: String?
    var threadId: String?
    var data: [String: String]?
    var localizations: [String: CampaignFields.LocalizationRequest]?

    /// The campaign's fields with this variant's over them, as a notification's fields go over a template's.
    func overlaid(on campaign: CampaignFields) -> CampaignFields {
        CampaignFields(
            message: message, title: title, sound: sound, badge: badge, category: category, threadId: threadId, data: data,
            localizations: localizations
        ).overlaid(on: campaign)
    }

    /// The variants `requests` ask for over `campaign`, each checked as a notification's own fields are (sizes
    /// included), or the first problem found, naming the variant.
    static func checked(
        _ requests: [VariantRequest], over campaign: CampaignFields, by caller: AuthenticatedUser,
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
