import RichPushCore
import Testing

@testable import RichPushDaemon

@Suite("richpushd configuration")
struct ConfigurationTests {
    static let home = ["HOME": "/home/alice"]
    static let minimal = ["server": "http://gateway:8080", "user": "alice", "password-file": "/run/secret"]

    func resolve(
        flags: [String: String] = minimal, switches: Set<String> = [], environment: [String: String] = home, files: [String: String] = [:]
    ) throws(SettingError) -> DaemonConfiguration {
        let given = flags.mapValues { [$0] }.merging(switches.map { ($0, ["true"]) }) { $1 }
        return try DaemonConfiguration.resolve(flags: GivenFlags(given), environment: environment) { files[$0] }
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws {
        let file = ["/home/alice/.config/richpush/richpushd.conf": "image-size = 100\ncache-size = 8M\nheartbeat-timeout = 20\n"]
        var environment = Self.home
        environment["RICHPUSH_IMAGE_SIZE"] = "200"
        environment["RICHPUSH_CACHE_SIZE"] = "16M"
        var flags = Self.minimal
        flags["image-size"] = "300"
        let configuration = try resolve(flags: flags, environment: environment, files: file)
        #expect(configuration.imageSize == 300)
        #expect(configuration.cacheLimit == 16 * 1024 * 1024)
        #expect(configuration.heartbeatTimeout == .seconds(20))
        #expect(configuration.openCommand == ["xdg-open"])
        #expect(configuration.configFile == "/home/alice/.config/richpush/richpushd.conf")
    }

    @Test func everySettingCanComeFromTheEnvironment() throws {
        let environment = Self.home.merging([
            "RICHPUSH_SERVER": "https://push.example.com/", "RICHPUSH_USER": "bob", "RICHPUSH_PASSWORD_FILE": "/p",
            "RICHPUSH_TAGS": "topic:sale, lang:en", "RICHPUSH_ONCE": "true", "RICHPUSH_VERBOSE": "1",
            "RICHPUSH_OPEN_COMMAND": "gio open", "RICHPUSH_CA_FILE": "/ca.pem",
        ]) { $1 }
        let configuration = try resolve(flags: [:], environment: environment)
        #expect(configuration.server == "https://push.example.com")
        #expect(configuration.username == "bob")
        #expect(configuration.secret == .passwordFile("/p"))
        #expect(configuration.tags == ["topic:sale", "lang:en"])
        #expect(configuration.once && configuration.verbose)
        #expect(configuration.openCommand == ["gio", "open"])
        #expect(configuration.caFile == "/ca.pem")
    }

    @Test func theConfigFileCanHoldTheConnectionSettings() throws {
        let file = ["/etc/rp.conf": "# the office gateway\nserver = \"http://office:8080\"\nuser = carol\npassword_file = /home/carol/.rp\n"]
        let configuration = try resolve(flags: ["config": "/etc/rp.conf"], files: file)
        #expect(configuration.server == "http://office:8080")
        #expect(configuration.username == "carol")
        #expect(configuration.secret == .passwordFile("/home/carol/.rp"))
    }

    @Test func stateAndCacheFollowTheXDGBaseDirectories() throws {
        let defaults = try resolve()
        #expect(defaults.stateDirectory == "/home/alice/.local/state/richpush")
        #expect(defaults.cacheDirectory == "/home/alice/.cache/richpush")
        let custom = try resolve(environment: Self.home.merging(["XDG_STATE_HOME": "/s", "XDG_CACHE_HOME": "/c", "XDG_CONFIG_HOME": "/x"]) { $1 })
        #expect(custom.stateDirectory == "/s/richpush")
        #expect(custom.cacheDirectory == "/c/richpush")
    }

    @Test func theServerTheUserAndAPasswordSourceAreRequired() {
        #expect(throws: SettingError.missing("server", "the gateway's URL, such as https://push.example.com")) { try resolve(flags: [:]) }
        #expect(throws: SettingError.missing("user", "the user this device belongs to (or give --token-file)")) {
            try resolve(flags: ["server": "http://g"])
        }
        #expect(
            throws: SettingError(
                "no password: give --password-file FILE (or RICHPUSH_PASSWORD_FILE) or --password-stdin, or an API token with --token-file FILE")
        ) { try resolve(flags: ["server": "http://g", "user": "a"]) }
        let fromStandardInput = try? resolve(flags: ["server": "http://g", "user": "a"], switches: ["password-stdin"])
        #expect(fromStandardInput?.secret == .passwordStandardInput)
    }

    @Test func aTokenFileNeedsNoUserNorPassword() throws {
        let configuration = try resolve(flags: ["server": "http://g", "token-file": "/t"])
        #expect(configuration.secret == .tokenFile("/t"))
        #expect(configuration.username == nil)
    }

    @Test func thePasswordIsNotASetting() {
        let file = ["/home/alice/.config/richpush/richpushd.conf": "password = hunter2\n"]
        #expect(throws: SettingError.unknownKey("password", file: "/home/alice/.config/richpush/richpushd.conf", program: "richpushd")) {
            try resolve(files: file)
        }
    }

    @Test func anExplicitConfigFileMustExist() {
        #expect(throws: SettingError.unreadableFile("/nope.conf")) {
            try resolve(flags: Self.minimal.merging(["config": "/nope.conf"]) { $1 })
        }
    }

    @Test(arguments: ["ftp://gateway", "gateway:8080", "http://"])
    func theServerMustBeAnHTTPURL(server: String) {
        #expect(throws: SettingError.self) { try resolve(flags: Self.minimal.merging(["server": server]) { $1 }) }
    }

    @Test func tagsTheGatewayDerivesAreRefused() {
        #expect(throws: SettingError.self) { try resolve(flags: Self.minimal.merging(["tags": "username:mallory"]) { $1 }) }
        #expect(throws: SettingError.self) { try resolve(flags: Self.minimal.merging(["tags": "not a tag"]) { $1 }) }
    }

    @Test(arguments: [("64M", 64 << 20), ("1G", 1 << 30), ("2048K", 2 << 20), ("1048576", 1 << 20), ("16MiB", 16 << 20)])
    func cacheSizesReadWithUnits(text: String, bytes: Int) throws {
        #expect(DaemonConfiguration.parseSize(text) == bytes)
    }

    @Test(arguments: ["0", "512K", "lots", "-5M"])
    func cacheSizesBelowOneMebibyteAreRefused(text: String) {
        #expect(DaemonConfiguration.parseSize(text) == nil)
    }

    @Test func aBooleanThatIsNotABooleanIsRefused() {
        #expect(throws: SettingError("--once must be true or false, not 'maybe' (from RICHPUSH_ONCE)")) {
            try resolve(environment: Self.home.merging(["RICHPUSH_ONCE": "maybe"]) { $1 })
        }
    }

    @Test func oneTrailingNewlineIsNotPartOfThePassword() {
        typealias Source = DaemonConfiguration.SecretSource
        #expect(Source.strippingOneNewline("secret\n") == "secret")
        #expect(Source.strippingOneNewline("secret\r\n") == "secret")
        #expect(Source.strippingOneNewline("secret\n\n") == "secret\n")
        #expect(Source.strippingOneNewline("secret") == "secret")
    }
}
