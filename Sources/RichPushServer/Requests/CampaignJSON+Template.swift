import RichPushCore

extension CampaignJSON {
    /// These fields over a template's: each field given here wins, the rest come from the template. A template's
    /// fetch deadline is left behind by a send that makes the push an alert (an alert takes none, and the request
    /// could not otherwise take it away).
    func overlaid(on template: CampaignJSON) -> CampaignJSON {
        let pushStyle = pushStyle ?? template.pushStyle
        return CampaignJSON(
            message: message ?? template.message, richType: richType ?? template.richType, imageId: imageId ?? template.imageId,
            url: url ?? template.url, text: text ?? template.text, audience: audience ?? template.audience,
            pushStyle: pushStyle, title: title ?? template.title, sound: sound ?? template.sound,
            badge: badge ?? template.badge, category: category ?? template.category, threadId: threadId ?? template.threadId,
            data: data ?? template.data, localizations: localizations ?? template.localizations, expiresIn: expiresIn ?? template.expiresIn,
            fallback: fallback ?? (pushStyle == .alert ? nil : template.fallback), deliveryRate: deliveryRate ?? template.deliveryRate,
            actions: actions ?? template.actions, interruptionLevel: interruptionLevel ?? template.interruptionLevel,
            relevanceScore: relevanceScore ?? template.relevanceScore, channel: channel ?? template.channel)
    }

    /// The fields with their placeholders filled in from `variables`; a field whose rendering passes its limit is
    /// refused as that field would be, before the whole of it is built.
    func rendered(with variables: [String: String]) throws -> CampaignJSON {
        try checkCounts()
        var rendered = self
        for (field, name, text) in templatedFields {
            let value = try Placeholders.render(text, field: name, with: variables, limit: field.renderLimit, tooLong: field.tooLong(name))
            rendered.set(field, to: value)
        }
        return rendered
    }

    /// Refuses fields whose placeholders do not parse.
    func checkPlaceholders() throws {
        for (_, name, text) in templatedFields { try Placeholders.check(text, field: name) }
    }

    /// Where a templated text lives.
    private enum TemplatedField {
        case message, title, text, url
        case data(String)
        case localized(String, WritableKeyPath<Localization, String?>)

        /// The most UTF-8 bytes a rendering may produce: the field's own limit, four bytes to a character where it
        /// counts characters; the exact limit is checked on the rendered fields.
        var renderLimit: Int {
            switch limitedAs {
            case .title: CampaignJSON.maximumTitleLength * 4
            case .text: CampaignJSON.maximumTextBytes
            case .url: CampaignJSON.maximumURLLength * 4
            case .data: CampaignJSON.maximumDataValueBytes
            case .message, .localized: CampaignJSON.maximumMessageLength * 4
            }
        }

        /// What the field's own check answers when it is too long.
        func tooLong(_ name: String) -> APIError {
            switch limitedAs {
            case .title: .unprocessable("notification.invalidTitle", "\(name) must be 1 to \(CampaignJSON.maximumTitleLength) characters.")
            case .text: .unprocessable("notification.invalidText", "\(name) must be 1 byte to 64 KiB.")
            case .url: .unprocessable("notification.invalidURL", "\(name) must be at most \(CampaignJSON.maximumURLLength) characters.")
            case .data: .unprocessable("notification.invalidData", "\(name) must be at most \(CampaignJSON.maximumDataValueBytes) bytes.")
            case .message, .localized:
                .unprocessable("notification.invalidMessage", "\(name) must be at most \(CampaignJSON.maximumMessageLength) characters.")
            }
        }

        /// The default field whose limit this one shares: a language's title is limited as the title is.
        private var limitedAs: TemplatedField {
            guard case .localized(_, let keyPath) = self else { return self }
            switch keyPath {
            case \Localization.title: return .title
            case \Localization.text: return .text
            case \Localization.url: return .url
            default: return .message
            }
        }
    }

    /// Every field that may hold placeholders, with its name for messages.
    private var templatedFields: [(TemplatedField, String, String)] {
        var fields: [(TemplatedField, String, String)] = []
        for (path, name, value) in [
            (TemplatedField.message, "message", message), (.title, "title", title), (.text, "text", text), (.url, "url", url),
        ] {
            if let value { fields.append((path, name, value)) }
        }
        for (key, value) in (data ?? [:]).sorted(by: { $0.key < $1.key }) {
            fields.append((.data(key), "data.\(key)", value))
        }
        for (tag, localization) in (localizations ?? [:]).sorted(by: { $0.key < $1.key }) {
            for (field, keyPath) in [
                ("message", \Localization.message), ("title", \.title), ("text", \.text), ("url", \.url),
            ] as [(String, WritableKeyPath<Localization, String?>)] {
                if let value = localization[keyPath: keyPath] {
                    fields.append((.localized(tag, keyPath), "localizations.\(tag).\(field)", value))
                }
            }
        }
        return fields
    }

    private mutating func set(_ field: TemplatedField, to value: String) {
        switch field {
        case .message: message = value
        case .title: title = value
        case .text: text = value
        case .url: url = value
        case .data(let key): data?[key] = value
        case .localized(let tag, let keyPath): localizations?[tag]?[keyPath: keyPath] = value
        }
    }
}
