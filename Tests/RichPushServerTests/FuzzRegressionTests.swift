import Foundation
import RichPushFuzzTargets
import TestSupport
import Testing

/// Every seed of the fuzz corpus and every input that once crashed a parser, through the target that read it: a
/// crash fails the run, so a fixed parser stays fixed.
@Suite("Fuzz seeds and past crashes")
struct FuzzRegressionTests {
    @Test(arguments: FuzzTarget.allCases)
    func everySeedAndPastCrashPassesThroughItsTarget(_ target: FuzzTarget) throws {
        var inputs = 0
        for folder in ["Corpus", "Crashes"] {
            let directory = repositoryRoot.appendingPathComponent("Fuzz/\(folder)/\(target.rawValue)")
            for file in (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [] {
                target.run(try Data(contentsOf: file))
                inputs += 1
            }
        }
        #expect(inputs >= 2, "the seeds of \(target.rawValue) are missing")
    }
}
