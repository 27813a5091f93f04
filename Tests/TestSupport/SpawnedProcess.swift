public import Foundation
import Synchronization

/// A program the tests start, through posix_spawn.
///
/// Foundation's `Process` on Linux lists /proc/self/fd before each launch and copies 256 bytes of every entry's name
/// (swift-corelibs-foundation#5472): with the many descriptors of a parallel test run open, the copy read past the
/// directory buffer and crashed the test process. Here the child closes what it does not need itself
/// (`posix_spawn_file_actions_addclosefrom_np`), and nothing of the parent's descriptor table is read.
public final class SpawnedProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        case null
        /// A file, created if missing; output is appended to what it holds.
        case file(String)
        /// Standard error only: wherever standard output goes.
        case output
    }

    public let pid: pid_t
    private let exit = Mutex<Int32?>(nil)

    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Stream = .null,
        output: Stream = .null, error: Stream = .output
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try Self.redirect(STDIN_FILENO, to: input, flags: O_RDONLY, in: &actions)
        try Self.redirect(STDOUT_FILENO, to: output, flags: O_WRONLY | O_CREAT | O_APPEND, in: &actions)
        try Self.redirect(STDERR_FILENO, to: error, flags: O_WRONLY | O_CREAT | O_APPEND, in: &actions)
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, STDERR_FILENO + 1) == 0 else {
            throw SpawnFailure("this C library cannot close a child's descriptors (glibc 2.34 or later can)")
        }

        // The child starts with no signal blocked and every signal at its default, whatever this thread had set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnFailure("cannot start \(executable): \(String(cString: strerror(code)))") }
        self.pid = pid
    }

    /// Whether the program still runs; reaps it once it has ended.
    public var isRunning: Bool {
        exit.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
            // An exit code, or the number of the signal that ended the program, as Foundation's `Process` reports.
            status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
            return false
        }
    }

    /// Waits for the program to end and returns its exit code, or the signal that ended it. It sleeps between looks
    /// instead of blocking a thread: the tests share a few, and a blocked one could be the one a server under test
    /// needs to answer the program.
    @discardableResult
    public func exitStatus() async -> Int32 {
        while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        return exit.withLock { $0 ?? -1 }
    }

    /// Sends `signal` and waits up to `timeout` for the exit; returns the exit status and the time it took, or nil
    /// when the program had to be killed.
    public func terminate(_ signal: Int32 = SIGTERM, within timeout: Duration = .seconds(10)) async -> (status: Int32, elapsed: Duration)? {
        let start = ContinuousClock.now
        self.signal(signal)
        guard await eventually(within: timeout, { !isRunning }) else {
            reapKilled()
            return nil
        }
        return (await exitStatus(), ContinuousClock.now - start)
    }

    /// Reaps a program that was just killed, blocking for the moment that takes; for cleanups that cannot wait.
    public func reapKilled() {
        kill(pid, SIGKILL)
        while isRunning { usleep(1_000) }
    }

    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Runs a program to its end and returns its exit status and combined output.
    ///
    /// The output goes through a file, not a pipe: a background child the program leaves behind must not keep the
    /// test waiting for an end of file.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil
    ) async throws -> (status: Int32, output: String) {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-run-\(UUID().uuidString)").path
        defer { [".in", ".out"].forEach { try? FileManager.default.removeItem(atPath: files + $0) } }
        if let input { try Data(input.utf8).write(to: URL(fileURLWithPath: files + ".in")) }
        let process = try SpawnedProcess(
            executable, arguments, environment: environment, input: input == nil ? .null : .file(files + ".in"),
            output: .file(files + ".out"))
        let status = await process.exitStatus()
        return (status, (try? String(contentsOfFile: files + ".out", encoding: .utf8)) ?? "")
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which its Swift module does not declare.
    private static let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }

    private static func redirect(_ descriptor: Int32, to stream: Stream, flags: Int32, in actions: inout posix_spawn_file_actions_t) throws {
        let code: Int32
        switch stream {
        case .null:
            code = posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", flags, 0)
        case .file(let path):
            code = posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644)
        case .output:
            code = posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, descriptor)
        }
        guard code == 0 else { throw SpawnFailure("cannot redirect descriptor \(descriptor): \(String(cString: strerror(code)))") }
    }
}

public struct SpawnFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
