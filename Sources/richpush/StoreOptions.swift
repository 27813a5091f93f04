import ArgumentParser
import RichPushArguments
import RichPushCore
import RichPushServer

/// Where the store is, shared by `serve` and `user add` so both reach the same data.
struct StoreOptions: ParsableArguments {
    @Option(ServeSettings.dataDirectory) var dataDirectory
    @Option(ServeSettings.databaseURL) var databaseURL
    @Option(ServeSettings.config) var configFile
}
