/// ISO 8601 durations as the API takes them (`PT10M`, `PT1H30M`, `P1D`): Foundation parses and formats ISO 8601
/// dates but not durations. Years and months are refused: their length depends on the calendar, and the API's
/// durations are spans of seconds.
public enum ISODuration {
    /// The number of seconds `text` spells (`P[nW][nD][T[nH][nM][nS]]`, each number a whole one but the seconds),
    /// or nil when it is not such a duration.
    public static func seconds(in text: String) -> Double? {
        var rest = Substring(text.uppercased())
        guard rest.popFirst() == "P", !rest.isEmpty else { return nil }
        var total = 0.0
        var inTime = false
        var sawPart = false
        var number = ""
        for character in rest {
            switch character {
            case "T":
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            case "0"..."9", ".":
                number.append(character)
            default:
                let unit: Double? =
                    switch (inTime, character) {
                    case (false, "W"): 604_800
                    case (false, "D"): 86_400
                    case (true, "H"): 3600
                    case (true, "M"): 60
                    case (true, "S"): 1
                    default: nil
                    }
                guard let unit, let value = Double(number), character == "S" || !number.contains(".") else { return nil }
                total += value * unit
                number = ""
                sawPart = true
            }
        }
        guard sawPart, number.isEmpty, !(inTime && rest.last == "T") else { return nil }
        return total
    }

    /// `seconds`, rounded to a whole second, as the shortest ISO 8601 duration of hours, minutes and seconds:
    /// `PT10M`, `PT1H30M`, `PT0S`.
    public static func text(ofSeconds seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        var text = "PT"
        if whole >= 3600 { text += "\(whole / 3600)H" }
        if whole % 3600 >= 60 { text += "\(whole % 3600 / 60)M" }
        if whole % 60 > 0 || text == "PT" { text += "\(whole % 60)S" }
        return text
    }
}
