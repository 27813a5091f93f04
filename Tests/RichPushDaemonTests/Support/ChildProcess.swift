import Foundation

/// A program the tests run, its output collected in a file; ended for sure by ``stop()``.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let outputFile: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], outputFile: String, errorFile: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        FileManager.default.createFile(atPath: outputFile, contents: nil)
        self.outputFile = outputFile
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        if let errorFile {
            FileManager.default.createFile(atPath: errorFile, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        } else {
            process.standardError = process.standardOutput
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var output: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits up to `timeout` for the exit; returns the exit status and the time it took.
    @discardableResult
    func terminate(_ signal: Int32 = SIGTERM, within timeout: Duration = .seconds(10)) -> (status: Int32, elapsed: Duration)? {
        guard process.isRunning else { return (process.terminationStatus, .zero) }
        let start = ContinuousClock.now
        kill(process.processIdentifier, signal)
        while process.isRunning {
            if ContinuousClock.now - start > timeout {
                stop()
                return nil
            }
            usleep(10_000)
        }
        return (process.terminationStatus, ContinuousClock.now - start)
    }

    /// Ends the process: SIGTERM, then SIGKILL after a second.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(1)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Waits until the output holds `text`; returns the output, or throws with it.
    @discardableResult
    func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let output = self.output
            if output.contains(text) { return output }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TestFailure("'\(text)' did not appear; output:\n\(output)")
    }
}

/// Runs a program to its end and returns its exit status and output.
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil) throws -> (
    status: Int32, output: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let inputPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
    try process.run()
    if let input {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try inputPipe.fileHandleForWriting.close()
    }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// A TCP port nobody listens on right now.
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw TestFailure("cannot bind") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// The directory of the test bundle, where `swift build --build-tests` also puts `richpush` and `richpushd`.
let productsDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
