import ArgumentParser
import RichPushArguments
import RichPushCLIClient
import RichPushCore

/// `richpush status ID`: where one notification's delivery stands.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the delivery status of a notification.",
        discussion: """
            Prints the funnel (sent, failed, fetched, displayed, opened, dismissed) and every delivery error. \
            Exit status: 0 delivered, 1 failed, expired or canceled, 2 partial, 3 refused by the gateway, \
            4 gateway unreachable, 5 still scheduled or sending, 64 usage error.
            """
    )

    @Argument(help: "The notification's id.") var id: Int64
    @OptionGroup var connection: ConnectionOptions
    @Flag(CommandLineSettings.wait) var wait

    func validate() throws {
        guard id > 0 else { throw ValidationError("a notification id is a positive integer") }
    }

    func run() async throws {
        var flags = GivenFlags()
        flags.add(CommandLineSettings.wait, wait)
        let settings = try connection.settings(more: flags, known: CommandLineSettings.status, command: "richpush status")
        let (wait, json, timeout): (Bool, Bool, Duration?)
        do {
            (wait, json, timeout) = (
                try settings.value(CommandLineSettings.wait), try settings.value(CommandLineSettings.json),
                try settings.value(CommandLineSettings.timeout)
            )
        } catch {
            throw ValidationError(error.description)
        }
        try await CommandRunner.run(try connection.connection(settings)) { await $0.status(id: id, wait: wait, json: json, timeout: timeout) }.exit()
    }
}
