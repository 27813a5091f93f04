import ArgumentParser
import RichPushArguments
import RichPushCLIClient
import RichPushCore

/// `richpush send`: a marketer's campaign from the terminal.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a rich notification through a gateway.",
        discussion: """
            Uploads the image, creates the notification and, with --wait, follows its delivery until it is delivered, \
            partial, failed, expired or canceled: a progress bar on a terminal, one line per change otherwise.

            Exit status: 0 delivered (without --wait: accepted), 1 failed, expired or canceled, 2 partial, \
            3 refused by the gateway (credentials, role, image, audience…) or, with --wait, an audience that matched no \
            device, 4 gateway unreachable, \
            5 still scheduled or sending when --timeout ran out, 64 usage error.

            Example: richpush send --server http://localhost:8080 --user mark --password-file ~/.richpush-password \
            --image img/logo.png --message "Winter sale" --to 'topic:sale && !lang:fr' --expires-in 1d --wait

            From a template, at 09:00 on each device's clock: richpush send --template winter-sale --var percent=30 \
            --at-local 2026-12-01T09:00:00 (the template gives the payload, message and audience unless flags do).
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @Option(name: .setting(CommandLineSettings.image), help: .setting(CommandLineSettings.image)) var image: String?
    @Option(name: .setting(CommandLineSettings.url), help: .setting(CommandLineSettings.url)) var url: String?
    @Option(name: .setting(CommandLineSettings.text), help: .setting(CommandLineSettings.text)) var text: String?
    @Option(name: .setting(CommandLineSettings.message), help: .setting(CommandLineSettings.message)) var message: String?
    @Option(name: .setting(CommandLineSettings.to), help: .setting(CommandLineSettings.to)) var to: String?
    @Option(name: .setting(CommandLineSettings.at), help: .setting(CommandLineSettings.at)) var at: String?
    @Option(name: .setting(CommandLineSettings.atLocal), help: .setting(CommandLineSettings.atLocal)) var atLocal: String?
    @Option(name: .setting(CommandLineSettings.expiresIn), help: .setting(CommandLineSettings.expiresIn)) var expiresIn: String?
    @Option(name: .setting(CommandLineSettings.pushStyle), help: .setting(CommandLineSettings.pushStyle)) var pushStyle: String?
    @Option(name: .setting(CommandLineSettings.idempotencyKey), help: .setting(CommandLineSettings.idempotencyKey)) var idempotencyKey: String?
    @Option(name: .setting(CommandLineSettings.title), help: .setting(CommandLineSettings.title)) var title: String?
    @Option(name: .setting(CommandLineSettings.sound), help: .setting(CommandLineSettings.sound)) var sound: String?
    @Option(name: .setting(CommandLineSettings.badge), help: .setting(CommandLineSettings.badge)) var badge: String?
    @Option(name: .setting(CommandLineSettings.category), help: .setting(CommandLineSettings.category)) var category: String?
    @Option(name: .setting(CommandLineSettings.threadId), help: .setting(CommandLineSettings.threadId)) var threadId: String?
    @Option(name: .setting(CommandLineSettings.template), help: .setting(CommandLineSettings.template)) var template: String?
    @Option(name: .setting(CommandLineSettings.data), help: .setting(CommandLineSettings.data)) var data: [String] = []
    @Option(name: .setting(CommandLineSettings.localized), help: .setting(CommandLineSettings.localized)) var localized: [String] = []
    @Option(name: .setting(CommandLineSettings.variables), help: .setting(CommandLineSettings.variables)) var variables: [String] = []
    @Flag(name: .setting(CommandLineSettings.wait), help: .setting(CommandLineSettings.wait)) var wait = false

    func run() async throws {
        var flags = GivenFlags()
        flags.add(CommandLineSettings.image, image)
        flags.add(CommandLineSettings.url, url)
        flags.add(CommandLineSettings.text, text)
        flags.add(CommandLineSettings.message, message)
        flags.add(CommandLineSettings.to, to)
        flags.add(CommandLineSettings.at, at)
        flags.add(CommandLineSettings.atLocal, atLocal)
        flags.add(CommandLineSettings.expiresIn, expiresIn)
        flags.add(CommandLineSettings.pushStyle, pushStyle)
        flags.add(CommandLineSettings.idempotencyKey, idempotencyKey)
        flags.add(CommandLineSettings.title, title)
        flags.add(CommandLineSettings.sound, sound)
        flags.add(CommandLineSettings.badge, badge)
        flags.add(CommandLineSettings.category, category)
        flags.add(CommandLineSettings.threadId, threadId)
        flags.add(CommandLineSettings.template, template)
        flags.add(CommandLineSettings.data, data)
        flags.add(CommandLineSettings.localized, localized)
        flags.add(CommandLineSettings.variables, variables)
        flags.add(CommandLineSettings.wait, wait)
        let settings = try connection.settings(more: flags, known: CommandLineSettings.send, command: "richpush send")
        let plan: SendPlan
        do {
            plan = try SendPlan(settings: settings)
        } catch {
            throw ValidationError(error.description)
        }
        try await CommandRunner.run(try connection.connection(settings)) { await $0.send(plan) }.exit()
    }
}
