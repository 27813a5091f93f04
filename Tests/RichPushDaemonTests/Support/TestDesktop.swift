import Foundation
import TestSupport

/// A real desktop for one test: Xvfb, a private session bus (`dbus-daemon`) and the dunst notification server.
///
/// Xvfb keeps its screen in a file (`-fbdir`), so a test can look at the pixels of an alert. dunst picks an action
/// from its context menu through a stand-in for dmenu that chooses the line labelled More, or what ``pick(_:)`` names. The bus activates no
/// services, so the only notification server is the dunst started here (or none, for a desktop without one).
final class TestDesktop: @unchecked Sendable {
    let directory: TemporaryDirectory
    private(set) var busAddress = ""
    private(set) var display = ""
    private var processes: [ChildProcess] = []

    init(notificationServer: Bool = true) async throws {
        directory = try TemporaryDirectory()
        do {
            try await start(notificationServer: notificationServer)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    private func start(notificationServer: Bool) async throws {
        let xvfb = try ChildProcess(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1024x768x24", "-fbdir", directory.path, "-nolisten", "tcp"],
            environment: [:], outputFile: directory.path + "/xvfb.out", errorFile: directory.path + "/xvfb.err")
        processes.append(xvfb)
        let number = try await xvfb.waitForOutput("\n").trimmingCharacters(in: .whitespacesAndNewlines)
        display = ":" + number
        let busConfiguration = try directory.write(
            "bus.conf",
            """
            <busconfig>
              <type>session</type>
              <listen>unix:tmpdir=\(directory.path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """)
        let bus = try ChildProcess(
            "/usr/bin/dbus-daemon", ["--config-file", busConfiguration, "--nofork", "--nopidfile", "--print-address=1"],
            environment: [:], outputFile: directory.path + "/bus.out", errorFile: directory.path + "/bus.err")
        processes.append(bus)
        busAddress = try await bus.waitForOutput("\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard notificationServer else { return }
        let picker = try directory.write(
            "pick-action", "#!/bin/sh\nlabel=$(cat '\(directory.path)/picked-label' 2>/dev/null || echo More)\ngrep -m1 \"^#$label\"\n",
            mode: 0o755)
        let configuration = try directory.write(
            "dunstrc",
            """
            [global]
                history_length = 100
                max_icon_size = 128
                dmenu = \(picker)
                show_indicators = no
            [urgency_low]
                timeout = 0
            [urgency_normal]
                timeout = 0
            [urgency_critical]
                timeout = 0

            """)
        let dunst = try ChildProcess(
            "/usr/bin/dunst", ["-config", configuration], environment: environment, outputFile: directory.path + "/dunst.out")
        processes.append(dunst)
        let ready = await eventually(within: .seconds(10)) { await (try? self.control(["debug"]).status) == 0 }
        guard ready else { throw TestFailure("dunst did not start:\n\(dunst.output)") }
    }

    /// The environment a desktop program sees.
    var environment: [String: String] {
        ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress, "PATH": "/usr/bin:/bin", "HOME": directory.path]
    }

    func stop() {
        for process in processes.reversed() { process.stop() }
        processes.removeAll()
    }

    /// Runs `dunstctl` against this desktop.
    @discardableResult
    func control(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await SpawnedProcess.run("/usr/bin/dunstctl", arguments, environment: environment)
    }

    /// Makes dunst's context menu (`control(["context"])`) pick the action labelled `label` instead of More.
    func pick(_ label: String) throws {
        _ = try directory.write("picked-label", label)
    }

    /// Starts `dbus-monitor` on the bus, watching `Notify` calls; its output is the monitor's text.
    func monitorNotifyCalls() async throws -> ChildProcess {
        let monitor = try ChildProcess(
            "/usr/bin/dbus-monitor",
            ["--address", busAddress, "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"],
            environment: environment, outputFile: directory.path + "/monitor-\(UUID().uuidString).out")
        processes.append(monitor)
        try await monitor.waitForOutput("NameLost")
        return monitor
    }

    /// How many alerts are on screen.
    func displayedCount() async throws -> Int {
        Int(try await control(["count", "displayed"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// How many alerts dunst holds: on screen, and waiting for room on it.
    func heldCount() async throws -> Int {
        let waiting = Int(try await control(["count", "waiting"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return try await displayedCount() + waiting
    }

    /// The alerts dunst closed, newest first, as field → value (dunst lists an alert only once it is closed).
    func history() async throws -> [[String: Any]] {
        let output = try await control(["history"]).output
        guard let object = SpawnedGateway.object(output), let data = object["data"] as? [[[String: Any]]], let entries = data.first else { return [] }
        return entries.map { entry in entry.compactMapValues { ($0 as? [String: Any])?["data"] } }
    }

    /// How many pixels on screen have the colour `rgb`.
    /// How many pixels of the screen have colour `rgb`, each channel within `tolerance` (a lossy image's colours).
    func pixels(matching rgb: (UInt8, UInt8, UInt8), tolerance: Int = 0) throws -> Int {
        try Screenshot(path: directory.path + "/Xvfb_screen0").count(rgb, tolerance: tolerance)
    }
}

/// The screen as Xvfb keeps it: an XWD file (a big-endian header, a colour map, then the rows of pixels).
struct Screenshot {
    let bytes: [UInt8]

    init(path: String) throws {
        bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func field(_ index: Int) -> Int {
        let offset = index * 4
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    func count(_ rgb: (UInt8, UInt8, UInt8), tolerance: Int) -> Int {
        let headerSize = field(0)
        let (width, height, bitsPerPixel, bytesPerLine, colours) = (field(4), field(5), field(11), field(12), field(19))
        guard bitsPerPixel == 32 else { return 0 }
        let start = headerSize + colours * 12
        var count = 0
        for y in 0..<height {
            let row = start + y * bytesPerLine
            for x in 0..<width {
                let pixel = row + x * 4
                guard pixel + 2 < bytes.count else { return count }
                // Little-endian 0x00RRGGBB: blue, green, red, padding.
                if abs(Int(bytes[pixel + 2]) - Int(rgb.0)) <= tolerance && abs(Int(bytes[pixel + 1]) - Int(rgb.1)) <= tolerance
                    && abs(Int(bytes[pixel]) - Int(rgb.2)) <= tolerance
                {
                    count += 1
                }
            }
        }
        return count
    }
}
