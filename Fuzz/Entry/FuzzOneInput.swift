import Foundation
import RichPushFuzzTargets

/// The target `RICHPUSH_FUZZ_TARGET` names, chosen at the first input: one binary serves every target.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["RICHPUSH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("RICHPUSH_FUZZ_TARGET must be one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
    }
    return target
}()

/// libFuzzer's callback for one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    selectedTarget.run(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}
