import Testing

@testable import RichPushCore

@Suite("Settings from flags, environment, file and defaults")
struct SettingSourcesTests {
    static let port = Setting.integer("port", "Port to listen on", in: 0...65535, default: 8080)
    static let heartbeat = Setting.duration("heartbeat-interval", "Between heartbeats", in: .seconds(1)...(.seconds(3600)), default: .seconds(15))
    static let data = Setting.list("data", "KEY=VALUE, repeatable")
    static let server = Setting.text("server", "The gateway's URL")
    static let wait = Setting.switch("wait", "Follow delivery")

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws {
        let file = ConfigFile(values: ["port": "3"])
        #expect(try SettingSources(flags: ["port": ["1"]], environment: ["RICHPUSH_PORT": "2"], file: file).value(Self.port) == 1)
        #expect(try SettingSources(environment: ["RICHPUSH_PORT": "2"], file: file).value(Self.port) == 2)
        #expect(try SettingSources(file: file).value(Self.port) == 3)
        #expect(try SettingSources().value(Self.port) == 8080)
    }

    @Test func anEmptyEnvironmentVariableGivesNothing() throws {
        #expect(
            try SettingSources(environment: ["RICHPUSH_SERVER": ""], file: ConfigFile(values: ["server": "http://f"])).value(Self.server)
                == "http://f")
    }

    @Test func aTextThatDoesNotReadIsRefusedSayingWhatWasExpectedAndWhereItCameFrom() {
        #expect(throws: SettingError("--port must be an integer from 0 to 65535, not 'eighty'")) {
            try SettingSources(flags: ["port": ["eighty"]]).value(Self.port)
        }
        #expect(throws: SettingError("--port must be an integer from 0 to 65535, not '70000' (from RICHPUSH_PORT)")) {
            try SettingSources(environment: ["RICHPUSH_PORT": "70000"]).value(Self.port)
        }
        #expect(throws: SettingError("--wait must be true or false, not 'maybe' (from /etc/richpush.conf)")) {
            try SettingSources(file: ConfigFile(values: ["wait": "maybe"]), filePath: "/etc/richpush.conf").value(Self.wait)
        }
    }

    @Test func aDurationIsWrittenWithUnitsOrAsSeconds() throws {
        #expect(try SettingSources(flags: ["heartbeat-interval": ["1m30s"]]).value(Self.heartbeat) == .seconds(90))
        #expect(try SettingSources(flags: ["heartbeat-interval": ["20"]]).value(Self.heartbeat) == .seconds(20))
        #expect(throws: SettingError.self) { try SettingSources(flags: ["heartbeat-interval": ["2h"]]).value(Self.heartbeat) }
        #expect(Self.heartbeat.help == "Between heartbeats (default 15s; env RICHPUSH_HEARTBEAT_INTERVAL).")
    }

    @Test func aRepeatedFlagGivesOneEntryEachAndTheEnvironmentSeparatesThemByCommas() throws {
        #expect(try SettingSources(flags: ["data": ["a=1,2", "b=3"]]).value(Self.data) == ["a=1,2", "b=3"])
        #expect(try SettingSources(environment: ["RICHPUSH_DATA": "a=1, b=3"]).value(Self.data) == ["a=1", "b=3"])
    }

    @Test func aMissingRequiredSettingNamesAllThreeWaysToGiveIt() {
        #expect(throws: SettingError("--server is required (or RICHPUSH_SERVER, or 'server = …' in the config file): the gateway's URL")) {
            try SettingSources().required(Self.server, "the gateway's URL")
        }
    }

    @Test func aConfigFileKeyThatIsNoSettingIsRefused() {
        let config = Setting.text("config", "The config file")
        #expect(throws: SettingError("the config file /c sets 'prot', which is not a setting of richpush serve")) {
            try SettingSources.load(
                flags: GivenFlags(), environment: ["RICHPUSH_CONFIG": "/c"], configFile: config, known: ["port"], program: "richpush serve"
            ) { _ in "prot = 80\n" }
        }
    }

    @Test func theConfigFileNamedByAFlagMustExistAndTheStandardOneMayNot() throws {
        let config = Setting.text("config", "The config file")
        var flags = GivenFlags()
        flags.add(named: config.name, ["/missing.conf"])
        #expect(throws: SettingError.unreadableFile("/missing.conf")) {
            try SettingSources.load(flags: flags, environment: [:], configFile: config, known: [], program: "richpushd") { _ in nil }
        }
        let sources = try SettingSources.load(
            flags: GivenFlags(), environment: [:], configFile: config, standardPath: "/home/a/.config/r.conf", known: ["port"],
            program: "richpushd"
        ) { _ in nil }
        #expect(sources.filePath == nil)
    }

    @Test(arguments: [(Duration.seconds(15), "15s"), (.seconds(60), "1m"), (.seconds(28 * 86_400), "4w"), (.milliseconds(250), "250ms")])
    func aDurationIsShownInItsLargestWholeUnit(duration: Duration, text: String) {
        #expect(DurationText.text(of: duration) == text)
    }
}
