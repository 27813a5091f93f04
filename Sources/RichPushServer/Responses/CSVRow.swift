import Foundation

/// RFC 4180 rows, written by hand: the export streams page by page into the response's buffers, and quoting a field is
/// a few lines where the CSV packages on hand write whole documents to a stream or file of their own.
enum CSVRow {
    /// `fields` as one line: a field holding a comma, quote, CR or LF is quoted, its quotes doubled; CRLF ends it. A
    /// field a spreadsheet would read as a formula is neutralised first.
    static func line(_ fields: [String]) -> String {
        fields.map { quoted(neutralised($0)) }.joined(separator: ",") + "\r\n"
    }

    /// `field` with a `'` before it when it starts with `=`, `+`, `-`, `@`, a tab or a CR, as OWASP's guidance on CSV
    /// injection has it: device-chosen ids and variant names reach a marketer's spreadsheet, which would run them.
    private static func neutralised(_ field: String) -> String {
        guard let first = field.utf8.first, "=+-@\t\r".utf8.contains(first) else { return field }
        return "'" + field
    }

    private static func quoted(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10 }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
