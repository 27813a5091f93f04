import Testing

@testable import RichPushCore

@Suite("Config files")
struct ConfigFileTests {
    @Test func namesValuesCommentsAndQuotesAreRead() throws {
        let file = try ConfigFile(parsing: "# richpush\nport = 9090\n\ndata_dir = \"/var/lib/richpush\"\n  log-level=debug  \n")
        #expect(file.values == ["port": "9090", "data-dir": "/var/lib/richpush", "log-level": "debug"])
    }

    @Test func aLineWithoutEqualsNamesItsLineNumber() {
        #expect(throws: ConfigFileError(line: 2, reason: "expected 'name = value'")) { try ConfigFile(parsing: "port = 1\nnonsense\n") }
    }
}
