extension CampaignFields {
    /// These fields over a template's: each field given here wins, the rest come from the template.
    func overlaid(on template: CampaignFields) -> CampaignFields {
        CampaignFields(
            message: message ?? template.message, richType: richType ?? template.richType, imageId: imageId ?? template.imageId,
            url: url ?? template.url, text: text ?? template.text, audience: audience ?? template.audience,
            pushStyle: pushStyle ?? template.pushStyle, title: title ?? template.title, sound: sound ?? template.sound,
            badge: badge ?? template.badge, category: category ?? template.category, threadId: threadId ?? template.threadId,
            data: data ?? template.data, localizations: localizations ?? template.localizations, expiresIn: expiresIn ?? template.expiresIn)
    }

    /// The fields with their placeholders filled in from `variables`.
    func rendered(with variables: [String: String]) throws -> CampaignFields {
        var rendered = self
        try eachTemplated { field, text in try Placeholders.render(text, field: field, with: variables) }
            .forEach { path, value in rendered.set(path, to: value) }
        return rendered
    }

    /// Refuses fields whose placeholders do not parse.
    func checkPlaceholders() throws {
        _ = try eachTemplated { field, text in
            try Placeholders.check(text, field: field)
            return text
        }
    }

    /// Where a templated text lives.
    private enum TemplatedField {
        case message, title, text, url
        case data(String)
        case localized(String, WritableKeyPath<LocalizationRequest, String?>)
    }

    /// `transform` applied to every field that may hold placeholders, with the field's name for messages.
    private func eachTemplated(_ transform: (String, String) throws -> String) throws -> [(TemplatedField, String)] {
        var results: [(TemplatedField, String)] = []
        for (path, name, value) in [
            (TemplatedField.message, "message", message), (.title, "title", title), (.text, "text", text), (.url, "url", url),
        ] {
            if let value { results.append((path, try transform(name, value))) }
        }
        for (key, value) in (data ?? [:]).sorted(by: { $0.key < $1.key }) {
            results.append((.data(key), try transform("data.\(key)", value)))
        }
        for (tag, localization) in (localizations ?? [:]).sorted(by: { $0.key < $1.key }) {
            for (field, keyPath) in [
                ("message", \LocalizationRequest.message), ("title", \.title), ("text", \.text), ("url", \.url),
            ] as [(String, WritableKeyPath<LocalizationRequest, String?>)] {
                if let value = localization[keyPath: keyPath] {
                    results.append((.localized(tag, keyPath), try transform("localizations.\(tag).\(field)", value)))
                }
            }
        }
        return results
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
