import ArgumentParser
import RichPushCLIClient

/// `richpush send`: a marketer's campaign from the terminal.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a rich notification through a gateway.",
        discussion: """
            Uploads the image, creates the notification and, with --wait, follows its delivery until it is delivered, \
            partial, failed, expired or canceled: a progress bar on a terminal, one line per change otherwise.

            Exit status: 0 delivered (without --wait: accepted), 1 failed, expired or canceled, 2 partial, \
            3 refused by the gateway (credentials, role, image, audience…), 4 gateway unreachable, \
            5 still scheduled or sending when --timeout ran out, 64 usage error.

            Example: richpush send --server http://localhost:8080 --user mark --password-file ~/.richpush-password \
            --image img/logo.png --message "Winter sale" --to 'topic:sale && !lang:fr' --expires-in 1d --wait

            From a template, at 09:00 on each device's clock: richpush send --template winter-sale --var percent=30 \
            --at-local 2026-12-01T09:00:00 (the template gives the payload, message and audience unless flags do).
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "A PNG, JPEG or WebP image to send (env RICHPUSH_IMAGE).") var image: String?
    @Option(help: "Send a link instead of an image (env RICHPUSH_URL).") var url: String?
    @Option(help: "Send a text instead of an image (env RICHPUSH_TEXT).") var text: String?
    @Option(help: "The alert's message (env RICHPUSH_MESSAGE).") var message: String?
    @Option(help: "The audience, a tag expression such as 'username:alice' (env RICHPUSH_TO).") var to: String?
    @Option(help: "Deliver at this ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z (env RICHPUSH_AT).") var at: String?
    @Option(name: .customLong("expires-in"), help: "Expire this long after delivery, e.g. 12h, 1d, 2w (env RICHPUSH_EXPIRES_IN).")
    var expiresIn: String?
    @Option(name: .customLong("push-style"), help: "silent (default) or alert (env RICHPUSH_PUSH_STYLE).") var pushStyle: String?
    @Option(name: .customLong("idempotency-key"), help: "Sending again with the same key creates nothing new (env RICHPUSH_IDEMPOTENCY_KEY).")
    var idempotencyKey: String?
    @Option(help: "The alert's title, at most 200 characters (env RICHPUSH_TITLE).") var title: String?
    @Option(help: "The alert's sound, default or a sound name; alert style only (env RICHPUSH_SOUND).") var sound: String?
    @Option(help: "The app badge: a number, or unread for each user's count of unread notifications (env RICHPUSH_BADGE).")
    var badge: String?
    @Option(help: "The alert's category, richPush unless given (env RICHPUSH_CATEGORY).") var category: String?
    @Option(name: .customLong("thread-id"), help: "Groups the alerts of one thread (env RICHPUSH_THREAD_ID).") var threadId: String?
    @Option(name: .customLong("data"), help: "Custom data for the app, KEY=VALUE; repeatable (env RICHPUSH_DATA, comma-separated).")
    var data: [String] = []
    @Option(
        name: .customLong("localized"),
        help: "A language's variant, LANG=FILE.json holding message, title, text or url; repeatable (env RICHPUSH_LOCALIZED, comma-separated)."
    )
    var localized: [String] = []
    @Option(
        name: .customLong("at-local"),
        help: "Deliver when each device's own zone reaches this wall-clock time, e.g. 2026-12-01T09:00:00 (env RICHPUSH_AT_LOCAL).")
    var atLocal: String?
    @Option(help: "Start from this template; the flags given override its fields (env RICHPUSH_TEMPLATE).") var template: String?
    @Option(name: .customLong("var"), help: "A value for the template's placeholders, KEY=VALUE; repeatable (env RICHPUSH_VAR, comma-separated).")
    var variables: [String] = []
    @Flag(help: "Follow delivery until a final state (env RICHPUSH_WAIT).") var wait = false

    func run() async throws {
        let settings = try connection.settings(more: [
            "image": image, "url": url, "text": text, "message": message, "to": to, "at": at, "expires-in": expiresIn,
            "push-style": pushStyle, "idempotency-key": idempotencyKey, "wait": wait ? "true" : nil, "title": title, "sound": sound,
            "badge": badge, "category": category, "thread-id": threadId,
            "data": data.isEmpty ? nil : data.joined(separator: "\n"),
            "localized": localized.isEmpty ? nil : localized.joined(separator: "\n"), "at-local": atLocal, "template": template,
            "var": variables.isEmpty ? nil : variables.joined(separator: "\n"),
        ])
        let plan: SendPlan
        do {
            plan = try SendPlan(settings: settings)
        } catch {
            throw ValidationError(error.description)
        }
        try await CommandRunner.run(try connection.connection(settings)) { await $0.send(plan) }.exit()
    }
}
