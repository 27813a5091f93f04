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

            With buttons: --action 'Shop now=https://shop.example/sale' --action 'Remind me=POST https://api.example/remind' \
            --action 'Not now=dismiss' --interruption-level time-sensitive.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @Option(CommandLineSettings.image) var image
    @Option(CommandLineSettings.url) var url
    @Option(CommandLineSettings.text) var text
    @Option(CommandLineSettings.message) var message
    @Option(CommandLineSettings.to) var to
    @Option(CommandLineSettings.at) var at
    @Option(CommandLineSettings.atLocal) var atLocal
    @Option(CommandLineSettings.expiresIn) var expiresIn
    @Option(CommandLineSettings.fallbackAfter) var fallbackAfter
    @Option(CommandLineSettings.rate) var rate
    @Option(CommandLineSettings.pushStyle) var pushStyle
    @Option(CommandLineSettings.idempotencyKey) var idempotencyKey
    @Option(CommandLineSettings.title) var title
    @Option(CommandLineSettings.sound) var sound
    @Option(CommandLineSettings.badge) var badge
    @Option(CommandLineSettings.category) var category
    @Option(CommandLineSettings.threadId) var threadId
    @Option(CommandLineSettings.template) var template
    @Option(CommandLineSettings.data) var data
    @Option(CommandLineSettings.localized) var localized
    @Option(CommandLineSettings.actions) var actions
    @Option(CommandLineSettings.interruptionLevel) var interruptionLevel
    @Option(CommandLineSettings.channel) var channel
    @Option(CommandLineSettings.variables) var variables
    @Flag(CommandLineSettings.wait) var wait

    func run() async throws {
        var flags = GivenFlags(options: self)
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
