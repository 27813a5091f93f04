import ArgumentParser
import RichPushArguments
import RichPushCore
import RichPushServer

/// Where the store is, shared by `serve` and `user add` so both reach the same data.
struct StoreOptions: ParsableArguments {
    @Option(name: .setting(ServeSettings.dataDirectory), help: .setting(ServeSettings.dataDirectory)) var dataDirectory: String?
    @Option(name: .setting(ServeSettings.databaseURL), help: .setting(ServeSettings.databaseURL)) var databaseURL: String?
    @Option(name: .setting(ServeSettings.config), help: .setting(ServeSettings.config)) var configFile: String?

    var given: GivenFlags {
        var flags = GivenFlags()
        flags.add(ServeSettings.dataDirectory, dataDirectory)
        flags.add(ServeSettings.databaseURL, databaseURL)
        flags.add(ServeSettings.config, configFile)
        return flags
    }
}
