import Foundation
import TestSupport

/// A program the tests run, its output collected in a file; ended for sure by ``stop()``.
final class ChildProcess: Sendable {
    let process: SpawnedProcess
    let outputFile: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], outputFile: String, errorFile: String? = nil) throws {
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        self.outputFile = outputFile
        if let errorFile { _ = FileManager.default.createFile(atPath: errorFile, contents: nil) }
        process = try SpawnedProcess(
            executable, arguments, environment: environment, output: .file(outputFile), error: errorFile.map { .file($0) } ?? .output)
    }

    var pid: Int32 { process.pid }
    var isRunning: Bool { process.isRunning }
    var output: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits up to `timeout` for the exit; returns the exit status and the time it took.
    @discardableResult
    func terminate(_ signal: Int32 = SIGTERM, within timeout: Duration = .seconds(10)) async -> (status: Int32, elapsed: Duration)? {
        guard process.isRunning else { return (await process.exitStatus(), .zero) }
        return await process.terminate(signal, within: timeout)
    }

    /// Ends the process for sure, at once: for cleanups, which cannot wait.
    func stop() {
        if process.isRunning { process.reapKilled() }
    }

    /// Waits until the output holds `text`; returns the output, or throws with it.
    @discardableResult
    func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws -> String {
        guard await eventually(within: timeout, { self.output.contains(text) }) else {
            throw TestFailure("'\(text)' did not appear; output:\n\(output)")
        }
        return output
    }
}

/// The directory of the test bundle, where `swift build --build-tests` also puts `richpush` and `richpushd`.
let productsDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
