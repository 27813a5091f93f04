// The memory floor of a statically linked Swift program like richpushd: the runtime and FoundationEssentials' JSON,
// exercised once, then idle. Usage: swift-floor SECONDS
import FoundationEssentials
import Glibc

struct Event: Codable {
    var richId: Int64
    var richType: String
}

let event = try JSONDecoder().decode(Event.self, from: Data(#"{"richId":1,"richType":"img"}"#.utf8))
print(String(decoding: try JSONEncoder().encode(event), as: UTF8.self))
fflush(stdout)
sleep(UInt32(CommandLine.arguments.dropFirst().first.flatMap { UInt32($0) } ?? 1))
