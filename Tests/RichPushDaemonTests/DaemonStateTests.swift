import Testing

@testable import RichPushDaemon

@Suite("What the daemon remembers across restarts")
struct DaemonStateTests {
    @Test func theStateSurvivesItsTextForm() {
        let state = DaemonState(cursor: 1234, shown: [40, 41, 42], alerts: [42: 17, 41: 9])
        #expect(DaemonState(text: state.text) == state)
        #expect(state.text == "richpushd-state 1\ncursor 1234\nshown 40 41 42\nalert 41 9\nalert 42 17\n")
    }

    @Test func aNotificationIsRememberedAsShownOnce() {
        var state = DaemonState()
        state.markShown(7)
        state.markShown(7)
        #expect(state.shown == [7])
        #expect(state.hasShown(7))
        #expect(!state.hasShown(8))
    }

    @Test func onlyTheNewestShownNotificationsAreKept() {
        var state = DaemonState()
        for id in 1...Int64(DaemonState.shownLimit + 10) { state.markShown(id) }
        #expect(state.shown.count == DaemonState.shownLimit)
        #expect(!state.hasShown(10))
        #expect(state.hasShown(11))
    }

    @Test func anAlertIsFoundByTheIdTheDesktopGaveIt() {
        let state = DaemonState(alerts: [42: 17])
        #expect(state.richId(ofAlert: 17) == 42)
        #expect(state.richId(ofAlert: 18) == nil)
    }

    @Test(arguments: ["", "something else\n", "richpushd-state 1\ncursor x\n", "richpushd-state 1\nalert 1\n", "richpushd-state 9\n"])
    func aDamagedStateFileIsRecognised(text: String) {
        #expect(DaemonState(text: text) == nil)
    }

    @Test func theInstallationIdIsCreatedOnceAndKept() throws {
        let directory = try TemporaryDirectory()
        let state = StateDirectory(path: directory.path + "/state/richpush")
        let first = try state.installationId()
        #expect(StateDirectory.isValidInstallationId(first))
        #expect(try state.installationId() == first)
        #expect(try FileIO.read(state.installationIdPath) == first + "\n")
    }

    @Test func savedStateIsReadBack() throws {
        let directory = try TemporaryDirectory()
        let state = StateDirectory(path: directory.path + "/richpush")
        #expect(try state.loadState() == (DaemonState(), false))
        try state.save(DaemonState(cursor: 5, shown: [1]))
        #expect(try state.loadState() == (DaemonState(cursor: 5, shown: [1]), false))
        try FileIO.writeAtomically(state.statePath, contents: "garbage")
        #expect(try state.loadState() == (DaemonState(), true))
    }
}
