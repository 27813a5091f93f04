public import Foundation
public import RichPushCore

/// The settings of `richpush send`, `status` and `export`, each declared once: their `--help`, the table of docs/cli.md and
/// ``Connection`` and ``SendPlan`` read them from here.
public enum CommandLineSettings {
    // How the commands reach the gateway.
    public static let server = Setting.text("server", "The gateway's URL, such as http://localhost:8080", defaultText: "required")
    public static let user = Setting.text("user", "The username to sign in with", defaultText: "required, unless --token-file")
    public static let passwordFile = Setting.text(
        "password-file", "A file holding the password; one trailing newline is not part of it",
        defaultText: "required, unless --password-stdin or --token-file")
    public static let passwordStandardInput = Setting.switch("password-stdin", "Read the password from standard input instead", defaultText: "off")
    public static let tokenFile = Setting.text(
        "token-file", "A file holding an API token (rp_…) to use instead of a user and password; the token names its user")
    public static let caFile = Setting.text(
        "ca-file", "Extra CA certificates (PEM) trusted for an HTTPS gateway", defaultText: "the system's CAs")
    public static let json = Setting.switch("json", "Write JSON on standard output instead of sentences", defaultText: "off")
    public static let timeout = Setting.optional(
        "timeout", "With --wait, give up after this long, such as 90s or 10m", expected: "a duration such as 90s, 10m or 1h",
        defaultText: "none", parse: positiveDuration)
    public static let wait = Setting.switch("wait", "Follow delivery until a final state", defaultText: "off")
    public static let config = Setting.text("config", "A file of 'name = value' lines, names as the long flags")

    // What `send` sends.
    public static let image = Setting.text("image", "A PNG, JPEG or WebP image to send")
    public static let url = Setting.text("url", "Send a link instead of an image")
    public static let text = Setting.text("text", "Send a text instead of an image")
    public static let message = Setting.text("message", "The alert's message", defaultText: "required, unless --template")
    public static let to = Setting.text(
        "to", "The audience, a tag expression such as 'username:alice'", defaultText: "required, unless --template")
    public static let at = Setting.optional(
        "at", "Deliver at this ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z",
        expected: "an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z", defaultText: "now", parse: Timestamp.parse)
    public static let atLocal = Setting.optional(
        "at-local", "Deliver when each device's own zone reaches this wall-clock time, such as 2026-12-01T09:00:00",
        expected: "a wall-clock time without a zone, such as 2026-12-01T09:00:00", parse: Timestamp.parseLocal)
    public static let expiresIn = Setting.optional(
        "expires-in", "Expire this long after delivery, such as 12h, 1d or 2w", expected: "a duration such as 30m, 12h, 1d or 2w",
        defaultText: "never", parse: positiveDuration)
    public static let fallbackAfter = Setting.optional(
        "fallback-after", "Send one alert to each phone or browser that has not fetched the payload this long after its silent push",
        expected: "a duration from 1m to 24h such as 10m", defaultText: "the gateway's --fallback-after"
    ) { text -> TimeInterval? in
        guard let seconds = DurationText.seconds(in: text), FallbackJSON.afterRange.contains(seconds) else { return nil }
        return seconds
    }
    public static let rate = Setting.optional(
        "rate", "Spread the dispatch evenly at this many pushes a minute",
        expected: "pushes a minute, from \(CampaignJSON.deliveryRates.lowerBound) to \(CampaignJSON.deliveryRates.upperBound)",
        defaultText: "as fast as the hubs take them"
    ) { text -> Int? in Int(text).flatMap { CampaignJSON.deliveryRates.contains($0) ? $0 : nil } }
    public static let pushStyle = Setting.optional(
        "push-style", "silent, or alert for a visible alert", expected: "silent or alert", defaultText: "silent", defaultIsLiteral: true,
        parse: PushStyle.init(rawValue:))
    public static let idempotencyKey = Setting.text("idempotency-key", "Sending again with the same key creates nothing new")
    public static let title = Setting.text("title", "The alert's title, at most 200 characters")
    public static let sound = Setting.text("sound", "The alert's sound, default or a sound name; alert style only")
    public static let badge = Setting.optional(
        "badge", "The app badge: a number, or unread for each user's count of unread notifications", expected: "a number or unread",
        parse: badgeValue)
    public static let category = Setting.text("category", "The alert's category", defaultText: PushContent.defaultCategory, defaultIsLiteral: true)
    public static let threadId = Setting.text("thread-id", "Groups the alerts of one thread")
    public static let data = Setting.list("data", "Custom data for the app, KEY=VALUE; repeatable (comma-separated in the environment)")
    public static let localized = Setting.list(
        "localized", "A language's variant, LANG=FILE.json holding message, title, text or url; repeatable (comma-separated in the environment)")
    public static let actions = Setting.list(
        "action",
        "A button, LABEL=https://… to open a link, LABEL=POST https://… (or GET) for a request the gateway makes, LABEL=dismiss; "
            + "at most 3, repeatable (comma-separated in the environment)")
    public static let interruptionLevel = Setting.optional(
        "interruption-level", "How loudly the push may interrupt", expected: InterruptionLevel.allCases.map(\.rawValue).joined(separator: ", "),
        defaultText: "the device's default", parse: InterruptionLevel.init(rawValue:))
    public static let channel = Setting.text("channel", "The Android notification channel of the alert")
    // What `activity` sends.
    public static let attributesType = Setting.text("attributes-type", "The app's ActivityAttributes type", defaultText: "required to start")
    public static let attributes = Setting.text("attributes", "The activity's attributes, a JSON object", defaultText: "{}")
    public static let contentState = Setting.text("content-state", "The activity's content state, a JSON object", defaultText: "required")
    public static let alertTitle = Setting.text("alert-title", "The title of an alert raised with the state")
    public static let alertBody = Setting.text("alert-body", "The body of an alert raised with the state")
    public static let staleAt = Setting.optional(
        "stale-at", "When iOS shows the state as stale, an ISO 8601 time with a zone",
        expected: "an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z", parse: Timestamp.parse)
    public static let relevanceScore = Setting.optional(
        "relevance-score", "Which of the app's activities the Dynamic Island shows first, from 0 to 1", expected: "a number from 0 to 1"
    ) { text -> Double? in Double(text).flatMap { (0...1).contains($0) ? $0 : nil } }
    public static let dismissAt = Setting.optional(
        "dismiss-at", "When iOS takes the ended activity off the lock screen, an ISO 8601 time with a zone",
        expected: "an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z", defaultText: "iOS's default", parse: Timestamp.parse)
    public static let template = Setting.text("template", "Start from this template; the flags given override its fields")
    public static let variables = Setting.list(
        "var", "A value for the template's placeholders, KEY=VALUE; repeatable (comma-separated in the environment)")

    /// What every command that speaks to the gateway takes.
    public static let connection: [any SettingDescription] = [
        server, user, passwordFile, passwordStandardInput, tokenFile, caFile, json, timeout, config,
    ]
    /// `richpush send`'s, in the order of `--help` and the table of docs/cli.md.
    public static let send: [any SettingDescription] =
        connection + [
            image, url, text, message, to, at, atLocal, expiresIn, fallbackAfter, rate, pushStyle, idempotencyKey, title, sound, badge, category,
            threadId,
            data,
            localized, actions, interruptionLevel, channel, template, variables, wait,
        ]
    /// `richpush activity`'s.
    public static let activity: [any SettingDescription] =
        connection + [to, attributesType, attributes, contentState, alertTitle, alertBody, staleAt, relevanceScore, dismissAt]
    /// `richpush status`'s.
    public static let status: [any SettingDescription] = connection + [wait]

    private static func positiveDuration(_ text: String) -> Duration? {
        guard let seconds = DurationText.seconds(in: text), seconds > 0 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private static func badgeValue(_ text: String) -> Badge? {
        text == "unread" ? .unread : Int(text).map(Badge.number)
    }
}

/// A command line's settings, whose refusals are the command's usage errors.
struct UsageSettings {
    let sources: SettingSources

    func value<Value>(_ setting: Setting<Value>) throws(UsageError) -> Value {
        do {
            return try sources.value(setting)
        } catch {
            throw UsageError(error.description)
        }
    }

    func value(_ setting: Setting<[String]>) throws(UsageError) -> [String] {
        do {
            return try sources.value(setting)
        } catch {
            throw UsageError(error.description)
        }
    }

    func required<Wrapped>(_ setting: Setting<Wrapped?>, _ hint: String) throws(UsageError) -> Wrapped {
        do {
            return try sources.required(setting, hint)
        } catch {
            throw UsageError(error.description)
        }
    }

    func isGiven<Value>(_ setting: Setting<Value>) -> Bool {
        sources.isGiven(setting)
    }
}
