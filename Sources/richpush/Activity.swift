import ArgumentParser
import RichPushArguments
import RichPushCLIClient
import RichPushCore

/// `richpush activity start|update|end`: Live Activities on the iPhones of an audience.
struct Activity: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start, update and end Live Activities.",
        discussion: """
            Example: richpush activity start --to username:alice --attributes-type DeliveryAttributes \
            --attributes '{"orderNumber":"A-17"}' --content-state '{"status":"packed"}', then \
            richpush activity update 3 --content-state '{"status":"out for delivery"}' --alert-body 'On its way', and \
            richpush activity end 3 --dismiss-at 2026-12-06T19:00:00Z. \
            Exit status: 0 accepted, 3 refused by the gateway, 4 gateway unreachable, 64 usage error.
            """,
        subcommands: [Start.self, Update.self, End.self]
    )

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a Live Activity on every iPhone of an audience.")
        @OptionGroup var connection: ConnectionOptions
        @Option(CommandLineSettings.to) var to
        @Option(CommandLineSettings.attributesType) var attributesType
        @Option(CommandLineSettings.attributes) var attributes
        @Option(CommandLineSettings.contentState) var contentState
        @Option(CommandLineSettings.alertTitle) var alertTitle
        @Option(CommandLineSettings.alertBody) var alertBody
        @Option(CommandLineSettings.staleAt) var staleAt
        @Option(CommandLineSettings.relevanceScore) var relevanceScore

        func run() async throws {
            try await Activity.run(.start, connection: connection, given: GivenFlags(options: self), command: "richpush activity start")
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a Live Activity's new content state.")
        @Argument(help: "The activity's id.") var id: Int64
        @OptionGroup var connection: ConnectionOptions
        @Option(CommandLineSettings.contentState) var contentState
        @Option(CommandLineSettings.alertTitle) var alertTitle
        @Option(CommandLineSettings.alertBody) var alertBody
        @Option(CommandLineSettings.staleAt) var staleAt

        func run() async throws {
            try await Activity.run(.update(id: id), connection: connection, given: GivenFlags(options: self), command: "richpush activity update")
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a Live Activity.")
        @Argument(help: "The activity's id.") var id: Int64
        @OptionGroup var connection: ConnectionOptions
        @Option(CommandLineSettings.dismissAt) var dismissAt

        func run() async throws {
            try await Activity.run(.end(id: id), connection: connection, given: GivenFlags(options: self), command: "richpush activity end")
        }
    }

    static func run(_ step: ActivityPlan.Step, connection: ConnectionOptions, given: GivenFlags, command: String) async throws {
        let settings = try connection.settings(more: given, known: CommandLineSettings.activity, command: command)
        let plan: ActivityPlan
        do {
            plan = try ActivityPlan(step, settings: settings)
        } catch {
            throw ValidationError(error.description)
        }
        try await CommandRunner.run(try connection.connection(settings)) { await $0.activity(plan) }.exit()
    }
}
