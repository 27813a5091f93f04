import Foundation
import RichPushCore
import TestSupport
import Testing

@testable import RichPushDaemon

@Suite("What ships next to the binary")
struct DistributionTests {
    func read(_ name: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent("dist/\(name)"), encoding: .utf8)
    }

    @Test func theUserUnitRestartsOnFailureButNotOnAConfigurationError() throws {
        let unit = try read("richpushd.service").split(separator: "\n").map(String.init)
        #expect(unit.contains("ExecStart=%h/.local/bin/richpushd"))
        #expect(unit.contains("Restart=on-failure"))
        #expect(unit.contains("RestartPreventExitStatus=64 78"))
        #expect(unit.contains("WantedBy=default.target"))
    }

    @Test func theDesktopEntryIsTheOneTheAlertsName() throws {
        let entry = try read("\(DesktopNotifier.desktopEntry).desktop").split(separator: "\n").map(String.init)
        #expect(entry.first == "[Desktop Entry]")
        #expect(entry.contains("Name=\(DesktopNotifier.appName)"))
        #expect(entry.contains("Exec=richpushd"))
    }

    @Test func theBinaryLeavesGnuTLSWhichItNeverUsesUninitialized() async throws {
        // GnuTLS announces its initialization on standard error when asked to log.
        let run = try await SpawnedProcess.run(
            productsDirectory + "/richpushd", ["--version"], environment: ["PATH": "/usr/bin:/bin", "GNUTLS_DEBUG_LEVEL": "2"])
        #expect(run.status == 0)
        #expect(!run.output.contains("gnutls["), "\(run.output)")
    }

    @Test func theExampleConfigurationIsValid() throws {
        var files = ["/home/alice/.config/richpush/richpushd.conf": try read("richpushd.conf.example")]
        files["/unused"] = nil
        let configuration = try DaemonConfiguration.resolve(flags: GivenFlags(), environment: ["HOME": "/home/alice"]) { files[$0] }
        #expect(configuration.server == "https://push.example.com")
        #expect(configuration.secret == .passwordFile("/home/alice/.config/richpush/password"))
    }
}
