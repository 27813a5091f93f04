import Testing

@testable import RichPushCore

@Suite("Configuration sources")
struct ConfigFileTests {
    @Test func namesValuesCommentsAndQuotesAreRead() throws {
        let file = try ConfigFile(parsing: "# richpush\nport = 9090\n\ndata_dir = \"/var/lib/richpush\"\n  log-level=debug  \n")
        #expect(file.values == ["port": "9090", "data-dir": "/var/lib/richpush", "log-level": "debug"])
    }

    @Test func aLineWithoutEqualsNamesItsLineNumber() {
        #expect(throws: ConfigFileError(line: 2, reason: "expected 'name = value'")) { try ConfigFile(parsing: "port = 1\nnonsense\n") }
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFile() {
        let resolver = SettingsResolver(
            environment: ["RICHPUSH_PORT": "2", "RICHPUSH_DATA_DIR": "/env"],
            file: ConfigFile(values: ["port": "3", "data-dir": "/file", "hostname": "h"]))
        #expect(resolver.value("port", flagValue: "1") == "1")
        #expect(resolver.value("port", flagValue: nil) == "2")
        #expect(resolver.value("data-dir", flagValue: nil) == "/env")
        #expect(resolver.value("hostname", flagValue: nil) == "h")
        #expect(resolver.value("log-level", flagValue: nil) == nil)
    }

    @Test func environmentNamesFollowTheFlagNames() {
        #expect(SettingsResolver(environment: [:]).environmentName(of: "max-image-bytes") == "RICHPUSH_MAX_IMAGE_BYTES")
    }
}
