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
