import ArgumentParser
import RichPushCore

@main
struct RichPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "richpush",
        abstract: "A self-hosted rich-push content gateway.",
        discussion: """
            Every flag also has an environment form (--data-dir ↔ RICHPUSH_DATA_DIR). A flag wins over the \
            environment, the environment over the --config file, that over the default.
            """,
        version: Release.version,
        subcommands: [Serve.self, User.self, Send.self, Status.self, Export.self, Activity.self]
    )
}
