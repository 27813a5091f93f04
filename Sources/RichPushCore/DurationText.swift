/// Durations as people type them: `90s`, `30m`, `12h`, `1d`, `2w`, or a sum such as `1d12h`.
public enum DurationText {
    static let unitSeconds: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// The number of seconds `text` spells, or nil when it is not a duration.
    public static func seconds(in text: String) -> Double? {
        var total = 0.0
        var digits = ""
        var sawUnit = false
        for character in text where character != " " {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if let unit = unitSeconds[Character(character.lowercased())], let number = Double(digits) {
                total += number * unit
                digits = ""
                sawUnit = true
            } else {
                return nil
            }
        }
        return sawUnit && digits.isEmpty ? total : nil
    }
}

extension DurationText {
    /// `duration` as people write it, in the largest unit that divides it: `15s`, `1m`, `4w`; below a second, `250ms`.
    public static func text(of duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds % 1000 == 0 else { return "\(milliseconds)ms" }
        let seconds = milliseconds / 1000
        for (unit, size) in [("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60)] as [(String, Int64)] where seconds != 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}

extension Duration {
    /// The duration in seconds, for Foundation's dates.
    public var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
