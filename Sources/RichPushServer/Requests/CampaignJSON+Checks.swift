import Foundation
import RichPushCore
import RichPushStore

/// The checks of a campaign's fields, in a notification and, before its placeholders are filled in, in a template.
extension CampaignJSON {
    static let maximumMessageLength = 1000
    static let maximumTextBytes = 64 * 1024
    static let maximumURLLength = 2048
    static let maximumTitleLength = 200

    /// What the fields ask for, each checked: the message, the payload, the audience, the push style and the content.
    func checked(by caller: AuthenticatedUser, imageExists: (Int64) async throws -> Bool) async throws -> (
        message: String, payload: RichPayload, audience: TagExpression, style: PushStyle, content: PushContent
    ) {
        let message = try Self.message(self.message, field: "message")
        guard let richType else {
            throw APIError.unprocessable("notification.invalidRichType", "richType must be one of img, url, text.")
        }
        let payload = try await self.payload(of: richType, message: message, by: caller, imageExists: imageExists)
        let audienceText = audience ?? Tag.user(caller.username)
        let expression: TagExpression
        do {
            expression = try TagExpression(parsing: audienceText)
        } catch {
            throw APIError.badRequest("audience.invalid", "The audience is not a valid tag expression: \(error).")
        }
        if caller.role == .member, expression.soleUsername != caller.username {
            throw APIError.forbidden("A member may only address itself (audience \(Tag.user(caller.username))).")
        }
        let style = pushStyle ?? .silent
        let content = try self.content(style: style, richType: richType)
        try Self.checkSizes(message: message, richType: richType, style: style, content: content)
        return (message, payload, expression, style, content)
    }

    /// How long after delivery the campaign expires, from `expiresIn`.
    func lifetime() throws -> TimeInterval? {
        guard let expiresIn else { return nil }
        guard let seconds = DurationText.seconds(in: expiresIn), seconds > 0 else {
            throw APIError.unprocessable("notification.invalidExpiry", "expiresIn must be a duration such as 30m, 12h, 1d or 2w.")
        }
        return seconds
    }

    /// The fetch deadline the fields ask for, in seconds, checked; `serverDefault` (`--fallback-after`) for a silent
    /// push that names none. An alert is visible already: it gets none.
    func fetchDeadline(style: PushStyle, serverDefault: TimeInterval? = nil) throws -> TimeInterval? {
        guard let fallback else { return style == .silent ? serverDefault : nil }
        guard let after = fallback.after, let seconds = ISODuration.seconds(in: after), FallbackJSON.afterRange.contains(seconds) else {
            throw APIError.unprocessable(
                "notification.invalidFallback", "fallback.after must be an ISO 8601 duration from PT1M to PT24H, such as PT10M.")
        }
        guard (fallback.style ?? "alert") == "alert" else {
            throw APIError.unprocessable("notification.invalidFallback", "fallback.style must be alert.")
        }
        guard style == .silent else {
            throw APIError.unprocessable(
                "notification.invalidFallback", "fallback follows a silent push; an alert-style notification is visible already.")
        }
        return seconds
    }

    /// The delivery rate the fields ask for, in pushes a minute, checked.
    func checkedDeliveryRate() throws -> Int? {
        guard let deliveryRate else { return nil }
        guard Self.deliveryRates.contains(deliveryRate) else {
            throw APIError.unprocessable(
                "notification.invalidDeliveryRate",
                "deliveryRate is pushes a minute, from \(Self.deliveryRates.lowerBound) to \(Self.deliveryRates.upperBound).")
        }
        return deliveryRate
    }

    private func payload(of richType: RichType, message: String, by caller: AuthenticatedUser, imageExists: (Int64) async throws -> Bool)
        async throws -> RichPayload
    {
        switch richType {
        case .img:
            guard let imageId else { throw APIError.unprocessable("notification.missingImage", "richType img needs an imageId.") }
            // Image ids count up from 1: a member naming one would read another sender's unsent image through its own
            // payload. Members upload none, so there is no image a member may attach.
            guard caller.role.mayRunCampaigns else {
                throw APIError.forbidden("A member may not attach images; only marketers and admins send image notifications.")
            }
            guard imageId > 0, try await imageExists(imageId) else {
                throw APIError.unprocessable("image.notFound", "There is no image \(imageId); upload it to /api/images first.")
            }
            return .image(id: imageId)
        case .url:
            return .url(try Self.link(url, field: "url"))
        case .text:
            // Without a text of its own, the payload is the message itself.
            return .text(try text.map { try Self.text($0, field: "text") } ?? message)
        }
    }

    /// Title, sound, badge, category, thread, data and localizations, each checked.
    private func content(style: PushStyle, richType: RichType) throws -> PushContent {
        if sound != nil, style != .alert {
            throw APIError.unprocessable("notification.invalidSound", "sound is for the alert push style; a silent push makes no sound.")
        }
        try checkPlainValues()
        try checkCounts()
        let data = try Self.checkedData(self.data ?? [:])
        let actions = try actions.map(Self.checkedActions)
        let localizations = try Self.checkedLocalizations(self.localizations ?? [:], richType: richType, actions: actions ?? [])
        return PushContent(
            title: try title.map { try Self.title($0, field: "title") }, sound: sound, badge: badge, category: category, threadId: threadId,
            data: data, localizations: localizations, actions: actions?.isEmpty == true ? nil : actions, interruptionLevel: interruptionLevel,
            relevanceScore: relevanceScore, channel: channel)
    }

    /// The sound, badge, category and thread, which hold no placeholders, so a template is checked for them as a
    /// notification is.
    func checkPlainValues() throws {
        if let sound, sound != "default", !Self.isName(sound, maximumLength: 64) {
            throw APIError.unprocessable("notification.invalidSound", "sound must be default or a name of 1 to 64 of A-Z a-z 0-9 . _ -.")
        }
        if case .number(let number) = badge, !Badge.range.contains(number) {
            throw APIError.unprocessable("notification.invalidBadge", "badge must be a number from 0 to 99999, or \"unread\".")
        }
        if let category, !Self.isName(category, maximumLength: 64) {
            throw APIError.unprocessable("notification.invalidCategory", "category must be 1 to 64 of A-Z a-z 0-9 . _ -.")
        }
        if let threadId, threadId.isEmpty || threadId.count > 64 {
            throw APIError.unprocessable("notification.invalidThreadId", "threadId must be 1 to 64 characters.")
        }
        if let relevanceScore, !(0...1).contains(relevanceScore) {
            throw APIError.unprocessable("notification.invalidRelevanceScore", "relevanceScore must be a number from 0 to 1.")
        }
        if let channel, !Self.isName(channel, maximumLength: 64) {
            throw APIError.unprocessable("notification.invalidChannel", "channel must be 1 to 64 of A-Z a-z 0-9 . _ -.")
        }
    }

    static let maximumDataKeys = 20
    static let maximumDataValueBytes = 1024
    static let maximumLocalizations = 30

    /// The number of data keys and of languages: checked before any placeholder is filled in, as each is a field
    /// to render.
    func checkCounts() throws {
        guard (data?.count ?? 0) <= Self.maximumDataKeys else {
            throw APIError.unprocessable("notification.invalidData", "data holds at most \(Self.maximumDataKeys) keys.")
        }
        guard (localizations?.count ?? 0) <= Self.maximumLocalizations else {
            throw APIError.unprocessable("notification.invalidLocalization", "localizations hold at most \(Self.maximumLocalizations) languages.")
        }
    }

    private static func checkedData(_ data: [String: String]) throws -> [String: String] {
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            guard isDataKey(key) else {
                throw APIError.unprocessable(
                    "notification.invalidData", "data key '\(key.prefix(70))' must be a letter and then up to 63 letters, digits or _.")
            }
            guard !SilentPush.isReservedDataKey(key) else {
                throw APIError.unprocessable("notification.invalidData", "data key '\(key)' is reserved for the push itself.")
            }
            guard value.utf8.count <= maximumDataValueBytes else {
                throw APIError.unprocessable("notification.invalidData", "data.\(key) must be at most \(maximumDataValueBytes) bytes.")
            }
        }
        return data
    }

    private static func checkedLocalizations(_ requests: [String: Localization], richType: RichType, actions: [NotificationAction]) throws
        -> [String: Localization]
    {
        var localizations: [String: Localization] = [:]
        var folded: Set<String> = []
        for (tag, request) in requests.sorted(by: { $0.key < $1.key }) {
            guard LanguageTag.isValid(tag) else {
                throw APIError.unprocessable(
                    "notification.invalidLocalization", "'\(tag.prefix(40))' is not a BCP 47 language tag such as fr or pt-BR.")
            }
            guard folded.insert(LanguageTag.fold(tag)).inserted else {
                throw APIError.unprocessable("notification.invalidLocalization", "localizations name \(tag) twice.")
            }
            if request.text != nil, richType != .text {
                throw APIError.unprocessable("notification.invalidLocalization", "localizations.\(tag).text is for richType text.")
            }
            if request.url != nil, richType != .url {
                throw APIError.unprocessable("notification.invalidLocalization", "localizations.\(tag).url is for richType url.")
            }
            localizations[tag] = Localization(
                message: try request.message.map { try message($0, field: "localizations.\(tag).message") },
                title: try request.title.map { try title($0, field: "localizations.\(tag).title") },
                text: try request.text.map { try text($0, field: "localizations.\(tag).text") },
                url: try request.url.map { try link($0, field: "localizations.\(tag).url") },
                actions: try request.actions.map { try checkedLabels($0, of: actions, field: "localizations.\(tag).actions") })
        }
        return localizations
    }

    /// The buttons, each checked: an id of its own, a label, and what its kind needs and nothing else.
    static func checkedActions(_ actions: [NotificationAction]) throws -> [NotificationAction] {
        guard actions.count <= NotificationAction.maximumCount else {
            throw invalidActions("actions hold at most \(NotificationAction.maximumCount) buttons, not \(actions.count).")
        }
        var ids: Set<String> = []
        return try actions.enumerated().map { index, action in
            let field = "actions[\(index)]"
            guard NotificationAction.isId(action.id) else { throw invalidActions("\(field).id must be 1 to 32 of A-Z a-z 0-9 _ -.") }
            guard ids.insert(action.id).inserted else { throw invalidActions("Two actions have the id \(action.id).") }
            var checked = action
            checked.label = try label(action.label, field: "\(field).label")
            switch action.kind {
            case .open, .http:
                guard let url = action.url, isHTTPSLink(url) else {
                    throw invalidActions("\(field).url must be an absolute https link of at most \(maximumURLLength) characters.")
                }
            case .dismiss:
                guard action.url == nil else { throw invalidActions("\(field).url is for open and http actions.") }
            }
            guard action.kind == .http || (action.method == nil && action.body == nil) else {
                throw invalidActions("\(field): method and body are for http actions.")
            }
            if let body = action.body {
                guard action.method != .GET else { throw invalidActions("\(field).body goes with method POST, not GET.") }
                guard body.utf8.count <= NotificationAction.maximumBodyBytes else {
                    throw invalidActions("\(field).body must be at most \(NotificationAction.maximumBodyBytes) bytes.")
                }
            }
            return checked
        }
    }

    /// A language's labels: each names one of the notification's actions, once.
    private static func checkedLabels(_ labels: [ActionLabel], of actions: [NotificationAction], field: String) throws -> [ActionLabel] {
        var ids: Set<String> = []
        return try labels.enumerated().map { index, entry in
            guard actions.contains(where: { $0.id == entry.id }), ids.insert(entry.id).inserted else {
                throw invalidActions("\(field)[\(index)].id must name one of the notification's actions, once.")
            }
            return ActionLabel(id: entry.id, label: try label(entry.label, field: "\(field)[\(index)].label"))
        }
    }

    private static func label(_ text: String, field: String) throws -> String {
        let label = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !label.isEmpty, label.count <= NotificationAction.maximumLabelLength else {
            throw invalidActions("\(field) must be 1 to \(NotificationAction.maximumLabelLength) characters.")
        }
        return label
    }

    private static func isHTTPSLink(_ url: String) -> Bool {
        guard url.count <= maximumURLLength, let parsed = URL(string: url) else { return false }
        return parsed.scheme?.lowercased() == "https" && parsed.host?.isEmpty == false
    }

    private static func invalidActions(_ message: String) -> APIError {
        APIError.unprocessable("notification.invalidActions", message)
    }

    /// The code of a choice no case has: an action's kind and method are part of its actions.
    static func refusedChoiceCode(field: String) -> String {
        switch field {
        case "kind", "method": "notification.invalidActions"
        default: "notification.invalid\(field.prefix(1).uppercased())\(field.dropFirst())"
        }
    }

    /// Refuses, at create time, a variant whose push no hub would take: the APNs body over 4096 bytes or FCM's data
    /// over 4000, with the largest badge a device could get.
    private static func checkSizes(message: String, richType: RichType, style: PushStyle, content: PushContent) throws {
        let variants: [(name: String, localization: Localization?)] =
            [("the default", nil)] + content.localizations.sorted { $0.key < $1.key }.map { ("the \($0.key)", $0.value) }
        for variant in variants {
            let push = SilentPush(
                richId: Int64.max, richType: richType, message: message, style: style, content: content, localization: variant.localization,
                unreadCount: Badge.range.upperBound)
            let apns = push.apnsPayload().count
            guard apns <= SilentPush.apnsPayloadLimit else {
                throw APIError.unprocessable(
                    "notification.tooLarge",
                    "The push of \(variant.name) variant is \(apns) bytes for APNs, which accepts \(SilentPush.apnsPayloadLimit).")
            }
            let fcm = push.fcmDataSize
            guard fcm <= SilentPush.fcmDataLimit else {
                throw APIError.unprocessable(
                    "notification.tooLarge",
                    "The data of \(variant.name) variant are \(fcm) bytes for FCM, which accepts \(SilentPush.fcmDataLimit).")
            }
        }
    }

    private static func message(_ text: String?, field: String) throws -> String {
        guard let message = text?.trimmingCharacters(in: .whitespacesAndNewlines), !message.isEmpty else {
            throw APIError.unprocessable("notification.invalidMessage", "\(field) is required and may not be blank.")
        }
        guard message.count <= maximumMessageLength else {
            throw APIError.unprocessable("notification.invalidMessage", "\(field) must be at most \(maximumMessageLength) characters.")
        }
        return message
    }

    private static func title(_ text: String, field: String) throws -> String {
        let title = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= maximumTitleLength else {
            throw APIError.unprocessable("notification.invalidTitle", "\(field) must be 1 to \(maximumTitleLength) characters.")
        }
        return title
    }

    private static func text(_ text: String, field: String) throws -> String {
        guard !text.isEmpty, text.utf8.count <= maximumTextBytes else {
            throw APIError.unprocessable("notification.invalidText", "\(field) must be 1 byte to 64 KiB.")
        }
        return text
    }

    private static func link(_ url: String?, field: String) throws -> String {
        guard let url, url.count <= maximumURLLength, let parsed = URL(string: url),
            let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http", parsed.host?.isEmpty == false
        else {
            throw APIError.unprocessable("notification.invalidURL", "richType url needs an absolute http or https \(field).")
        }
        return url
    }

    /// `[A-Za-z0-9._-]{1,maximumLength}`.
    private static func isName(_ text: String, maximumLength: Int) -> Bool {
        (1...maximumLength).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "-")
            }
    }

    /// `[A-Za-z][A-Za-z0-9_]{0,63}`.
    private static func isDataKey(_ key: String) -> Bool {
        guard let first = key.utf8.first, (first | 0x20) >= 97, (first | 0x20) <= 122, key.utf8.count <= 64 else { return false }
        return key.utf8.allSatisfy { ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "_") }
    }
}
