import Foundation
import RichPushCore
import TestSupport
import Testing

@testable import RichPushCLIClient

@Suite("Reading a send from flags, environment and config file")
struct SendPlanTests {
    let logo = repositoryRoot.appendingPathComponent("img/logo.png").path

    /// The sources of a command line: each flag given once, except a value with line breaks, given once per line as a
    /// repeated flag is.
    func settings(_ flags: [String: String], environment: [String: String] = [:], file: [String: String] = [:]) -> SettingSources {
        SettingSources(
            flags: flags.mapValues { $0.split(separator: "\n").map(String.init) }, environment: environment, file: ConfigFile(values: file))
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheConfigFile() throws {
        let plan = try SendPlan(
            settings: settings(
                ["image": logo, "message": "from the flag"],
                environment: ["RICHPUSH_MESSAGE": "from the environment", "RICHPUSH_TO": "username:alice"],
                file: ["message": "from the file", "to": "username:bob", "push-style": "alert"]))
        #expect(plan.message == "from the flag")
        #expect(plan.audience == "username:alice")
        #expect(plan.pushStyle == .alert)
    }

    @Test func theImageIsReadBeforeTheGatewayIsContacted() throws {
        let plan = try SendPlan(settings: settings(["image": logo, "message": "m", "to": "topic:a"]))
        #expect(plan.payload == .image(path: logo, bytes: try Data(contentsOf: URL(fileURLWithPath: logo))))
        #expect(plan.notification(imageId: 7).imageId == 7)
        #expect(plan.notification(imageId: 7).richType == .img)
    }

    @Test func eachActionFlagIsAButtonWhoseKindItsValueSays() throws {
        let plan = try SendPlan(
            settings: settings([
                "text": "t", "message": "m", "to": "topic:a", "interruption-level": "time-sensitive", "channel": "offers",
                "action": "Shop now=https://shop.example/sale\nRemind me=POST https://api.example/remind\nNot now!=dismiss",
            ]))
        let notification = plan.notification(imageId: nil)
        #expect(
            notification.actions == [
                NotificationAction(id: "shop-now", label: "Shop now", kind: .open, url: "https://shop.example/sale"),
                NotificationAction(id: "remind-me", label: "Remind me", kind: .http, url: "https://api.example/remind", method: .POST),
                NotificationAction(id: "not-now-", label: "Not now!", kind: .dismiss),
            ])
        #expect(notification.interruptionLevel == .timeSensitive)
        #expect(notification.channel == "offers")
    }

    @Test func twoButtonsOfOneLabelGetIdsOfTheirOwn() throws {
        let actions = try SendPlan.actions(["Later=dismiss", "Later=https://example.com/"])
        #expect(actions.map(\.id) == ["later", "later-2"])
    }

    @Test func anActionWithoutWhatItDoesIsAUsageError() {
        #expect(throws: UsageError("--action must be LABEL=https://…, LABEL=POST https://… or LABEL=dismiss, not 'Shop now'")) {
            try SendPlan.actions(["Shop now"])
        }
        #expect(throws: UsageError("--action must be LABEL=https://…, LABEL=POST https://… or LABEL=dismiss, not 'x=PUT https://a'")) {
            try SendPlan.actions(["x=PUT https://a"])
        }
    }

    @Test func anUnreadableImageIsAUsageError() {
        #expect(throws: UsageError("cannot read the image /nonexistent/logo.png")) {
            try SendPlan(settings: settings(["image": "/nonexistent/logo.png", "message": "m", "to": "topic:a"]))
        }
    }

    @Test func exactlyOnePayloadIsRequired() {
        let expected = UsageError("give exactly one rich payload: --image FILE (PNG, JPEG or WebP), --url URL or --text TEXT")
        #expect(throws: expected) { try SendPlan(settings: settings(["message": "m", "to": "topic:a"])) }
        #expect(throws: expected) { try SendPlan(settings: settings(["url": "https://a.example", "text": "t", "message": "m", "to": "topic:a"])) }
    }

    @Test func aMissingMessageNamesTheFlagAndItsVariable() {
        #expect(throws: UsageError("--message is required (or RICHPUSH_MESSAGE, or 'message = …' in the config file): the text of the alert")) {
            try SendPlan(settings: settings(["text": "t", "to": "topic:a"]))
        }
    }

    @Test func expiresInCountsFromTheDeliveryTime() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let plan = try SendPlan(
            settings: settings(["text": "t", "message": "m", "to": "topic:a", "at": "2027-01-15T08:00:00Z", "expires-in": "1d"]), now: now)
        #expect(plan.deliverAt == Timestamp.parse("2027-01-15T08:00:00Z"))
        #expect(plan.expiresAt == Timestamp.parse("2027-01-16T08:00:00Z"))
        let immediate = try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "expires-in": "2h"]), now: now)
        #expect(immediate.expiresAt == now.addingTimeInterval(7200))
    }

    @Test func fallbackAfterBecomesTheNotificationsFetchDeadlineAsAnISODuration() throws {
        let plan = try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "fallback-after": "1h30m"]))
        #expect(plan.notification(imageId: nil).fallback == FallbackJSON(after: "PT1H30M", style: "alert"))
        #expect(try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a"])).notification(imageId: nil).fallback == nil)
    }

    @Test func aFallbackShorterThanAMinuteIsAUsageError() {
        #expect(throws: UsageError.self) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "fallback-after": "30s"]))
        }
    }

    @Test func rateBecomesTheNotificationsDeliveryRate() throws {
        let plan = try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "rate": "6000"]))
        #expect(plan.notification(imageId: nil).deliveryRate == 6000)
    }

    @Test(arguments: ["59", "fast", "1.5"])
    func aRateBelowOneASecondOrNotAWholeNumberIsAUsageError(_ rate: String) {
        #expect(throws: UsageError.self) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "rate": rate]))
        }
    }

    @Test func aTimeWithoutAZoneIsAUsageError() {
        #expect(throws: UsageError("--at must be an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z, not '2026-12-01 09:00'")) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "at": "2026-12-01 09:00"]))
        }
    }

    @Test func theCampaignsTitleSoundBadgeDataAndLocalizationsComeFromTheirFlags() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-fr-\(UUID().uuidString).json")
        try Data(#"{"message":"Soldes","title":"Soldes d’hiver"}"#.utf8).write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let plan = try SendPlan(
            settings: settings([
                "text": "t", "message": "Sale", "to": "topic:a", "title": "Winter sale", "sound": "default", "badge": "unread",
                "category": "sale", "thread-id": "winter", "data": "campaign=w1\nlink=shop://sale?a=b,c", "localized": "fr=\(scratch.path)",
            ]))
        let notification = plan.notification(imageId: nil)
        #expect(notification.title == "Winter sale")
        #expect(notification.sound == "default")
        #expect(notification.badge == .unread)
        #expect(notification.category == "sale")
        #expect(notification.threadId == "winter")
        #expect(notification.data == ["campaign": "w1", "link": "shop://sale?a=b,c"])
        #expect(notification.localizations == ["fr": Localization(message: "Soldes", title: "Soldes d’hiver")])
    }

    @Test func dataFromTheEnvironmentIsCommaSeparated() throws {
        let plan = try SendPlan(
            settings: settings(["text": "t", "message": "m", "to": "topic:a"], environment: ["RICHPUSH_DATA": "a=1, b=2", "RICHPUSH_BADGE": "7"]))
        #expect(plan.content.data == ["a": "1", "b": "2"])
        #expect(plan.content.badge == .number(7))
    }

    @Test func aMalformedContentFlagIsAUsageError() throws {
        #expect(throws: UsageError("--data must be KEY=VALUE, not 'campaign'")) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "data": "campaign"]))
        }
        #expect(throws: UsageError("--badge must be a number or unread, not 'lots'")) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "badge": "lots"]))
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-de-\(UUID().uuidString).json")
        try Data(#"{"mesage":"Hallo"}"#.utf8).write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        #expect(throws: UsageError("\(scratch.path) has 'mesage', which is not a field of a localization (message, title, text, url)")) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "localized": "de=\(scratch.path)"]))
        }
    }

    @Test func aTemplateGivesThePayloadMessageAndAudienceAndTheVariablesFillIt() throws {
        let plan = try SendPlan(settings: settings(["template": "winter-sale", "var": "percent=30\nname=Ada"]))
        let notification = plan.notification(imageId: nil)
        #expect(notification.template == "winter-sale")
        #expect(notification.variables == ["percent": "30", "name": "Ada"])
        #expect(notification.message == nil && notification.richType == nil && notification.audience == nil)
    }

    @Test func variablesWithoutATemplateAreAUsageError() {
        #expect(throws: UsageError("--var fills in a template's placeholders; name the template with --template")) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a", "var": "percent=30"]))
        }
        #expect(throws: UsageError("--var must be KEY=VALUE, not 'percent'")) {
            try SendPlan(settings: settings(["template": "winter-sale", "var": "percent"]))
        }
    }

    @Test func atLocalSendsTheWallClockTimeAndLeavesTheLifetimeToTheGateway() throws {
        let plan = try SendPlan(
            settings: settings(["text": "t", "message": "m", "to": "topic:a", "at-local": "2026-12-01T09:00:00", "expires-in": "12h"]))
        let notification = plan.notification(imageId: nil)
        #expect(notification.deliverAtLocal == "2026-12-01T09:00:00")
        #expect(notification.deliverAt == nil && notification.expiresAt == nil)
        #expect(notification.expiresIn == "12h")
    }

    @Test func atLocalWithAZoneOrBesideAtIsAUsageError() {
        let base = ["text": "t", "message": "m", "to": "topic:a"]
        #expect(throws: UsageError("give --at or --at-local, not both")) {
            try SendPlan(settings: settings(base.merging(["at": "2026-12-01T09:00:00Z", "at-local": "2026-12-01T09:00:00"]) { a, _ in a }))
        }
        #expect(
            throws: UsageError("--at-local must be a wall-clock time without a zone, such as 2026-12-01T09:00:00, not '2026-12-01T09:00:00Z'")
        ) {
            try SendPlan(settings: settings(base.merging(["at-local": "2026-12-01T09:00:00Z"]) { a, _ in a }))
        }
    }

    @Test func waitAndJsonCanComeFromTheEnvironment() throws {
        let plan = try SendPlan(
            settings: settings(["text": "t", "message": "m", "to": "topic:a"], environment: ["RICHPUSH_WAIT": "1", "RICHPUSH_JSON": "true"]))
        #expect(plan.wait)
        #expect(plan.json)
        #expect(throws: UsageError("--wait must be true or false, not 'maybe' (from RICHPUSH_WAIT)")) {
            try SendPlan(settings: settings(["text": "t", "message": "m", "to": "topic:a"], environment: ["RICHPUSH_WAIT": "maybe"]))
        }
    }
}

@Suite("Reading where the gateway is and who speaks to it")
struct ConnectionTests {
    func settings(_ flags: [String: String], environment: [String: String] = [:]) -> SettingSources {
        SettingSources(flags: flags.mapValues { [$0] }, environment: environment)
    }

    func passwordFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-password-\(UUID().uuidString)").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func thePasswordFileLosesOneTrailingNewline() throws {
        let path = try passwordFile("mark-password\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let connection = try Connection(
            settings: settings(["server": "http://localhost:8080", "user": "mark"], environment: ["RICHPUSH_PASSWORD_FILE": path])
        ) { Data() }
        #expect(connection == Connection(server: "http://localhost:8080", credential: .password(username: "mark", password: "mark-password")))
    }

    @Test func thePasswordCanComeFromStandardInput() throws {
        let connection = try Connection(settings: settings(["server": "https://push.example.com", "user": "mark", "password-stdin": "true"])) {
            Data("secret with spaces \n".utf8)
        }
        #expect(connection.credential == .password(username: "mark", password: "secret with spaces "))
    }

    @Test func withoutAPasswordSourceTheErrorSaysWhereToPutIt() {
        #expect(
            throws: UsageError(
                "give the password in a file with --password-file F (or RICHPUSH_PASSWORD_FILE), or on standard input with "
                    + "--password-stdin, or an API token in a file with --token-file F")
        ) {
            try Connection(settings: settings(["server": "http://localhost:8080", "user": "mark"])) { Data() }
        }
    }

    @Test func aTokenFileNeedsNoUserAndIsSentAsABearer() throws {
        let path = try passwordFile("rp_abc\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let connection = try Connection(settings: settings(["server": "http://localhost:8080", "token-file": path])) { Data() }
        #expect(connection.credential == .token("rp_abc"))
        #expect(connection.credential.authorization == "Bearer rp_abc")
    }

    @Test func aTokenFileThatHoldsNoTokenIsRefused() throws {
        let path = try passwordFile("hunter2\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: UsageError("the token file \(path) does not hold an API token (rp_…)")) {
            try Connection(settings: settings(["server": "http://localhost:8080", "token-file": path])) { Data() }
        }
    }

    @Test func theServerMustBeAnHTTPURL() {
        #expect(throws: UsageError("--server must be an http:// or https:// URL, not 'localhost:8080'")) {
            try Connection(settings: settings(["server": "localhost:8080", "user": "mark", "password-stdin": "true"])) { Data("p".utf8) }
        }
    }
}
