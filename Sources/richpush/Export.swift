import ArgumentParser
import RichPushCLIClient

/// `richpush export ID > results.csv`: every delivery of a notification as CSV.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every delivery of a notification to standard output as CSV.",
        discussion: """
            One row per addressed installation under a header row: installationId, owner, platform, variant, language, \
            state, reason, attempts, sentAt, fetchedAt, displayedAt, readState, userActionState, fallbackSentAt, fetchedBy, \
            action, actionStatus (RFC 4180). Marketers and admins only. Exit status: 0 written, 3 refused by the gateway, 4 gateway unreachable, 64 usage error.
            """
    )

    @Argument(help: "The notification's id.") var id: Int64
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard id > 0 else { throw ValidationError("a notification id is a positive integer") }
    }

    func run() async throws {
        let settings = try connection.settings(known: CommandLineSettings.connection, command: "richpush export")
        try await CommandRunner.run(try connection.connection(settings)) { await $0.export(id: id) }.exit()
    }
}
