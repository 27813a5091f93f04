import NIOCore

/// Refuses a multipart body whose part headers name a field with a byte outside ASCII, before MultipartKit reads it.
///
/// Written by hand because MultipartKit 4.7.1 (the version on hand) looks every byte of a header name up in a table of
/// 128 entries: a byte of 0x80 or above reads past it and kills the process. Header values may hold UTF-8 (a file
/// name); only names are checked, wherever a part's headers may begin: after a delimiter line at the start of the
/// body or after a line break.
enum MultipartHeaderCheck {
    /// Whether every header name in `body` is ASCII.
    static func namesAreASCII(in body: ByteBuffer, boundary: String) -> Bool {
        let delimiter = Array(("--" + boundary).utf8)
        return body.withUnsafeReadableBytes { bytes in
            var index = 0
            while let start = find(delimiter, in: bytes, from: index) {
                index = start + delimiter.count
                let atLineStart = start == 0 || (start >= 2 && bytes[start - 2] == 13 && bytes[start - 1] == 10)
                guard atLineStart, index + 1 < bytes.count, bytes[index] == 13, bytes[index + 1] == 10 else { continue }
                guard headerNamesAreASCII(in: bytes, from: index + 2) else { return false }
            }
            return true
        }
    }

    /// Checks the header lines from `start` to the empty line that ends them.
    private static func headerNamesAreASCII(in bytes: UnsafeRawBufferPointer, from start: Int) -> Bool {
        var index = start
        while index < bytes.count {
            if bytes[index] == 13 { return true }
            var inName = true
            while index < bytes.count, bytes[index] != 13 {
                if bytes[index] == UInt8(ascii: ":") { inName = false }
                if inName, bytes[index] >= 0x80 { return false }
                index += 1
            }
            index += 2
        }
        return true
    }

    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == first, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
            index += 1
        }
        return nil
    }
}
