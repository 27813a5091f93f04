import ArgumentParser
import RichPushCLIClient

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
    @Flag(help: "Follow delivery until a final state (env RICHPUSH_WAIT).") var wait = false

    func validate() throws {
        guard id > 0 else { throw ValidationError("a notification id is a positive integer") }
    }

    func run() async throws {
        let settings = try connection.settings(more: ["wait": wait ? "true" : nil])
        let (wait, json, timeout): (Bool, Bool, Duration?)
        do {
            (wait, json, timeout) = (try settings.isOn("wait"), try settings.isOn("json"), try settings.timeout())
        } catch {
            throw ValidationError(error.description)
        }
        try await CommandRunner.run(try connection.connection(settings)) { await $0.status(id: id, wait: wait, json: json, timeout: timeout) }.exit()
    }
}
