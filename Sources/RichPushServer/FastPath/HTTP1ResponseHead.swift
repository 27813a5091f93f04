import HTTPTypes
import NIOCore

extension ByteBuffer {
    /// Writes an HTTP/1.1 response head of `status` and `fields`, then `Date` and `Server`, as NIOHTTP1's encoder
    /// would, for an answer that goes to the socket below the HTTP handlers. HTTP types already refused any name or
    /// value that could break the framing.
    mutating func writeHTTP1ResponseHead(_ status: HTTPResponse.Status, _ fields: HTTPFields, date: String, server: String) {
        writeStaticString("HTTP/1.1 ")
        let code = status.code
        writeInteger(UInt8(ascii: "0") + UInt8(code / 100))
        writeInteger(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        writeInteger(UInt8(ascii: "0") + UInt8(code % 10))
        writeStaticString(" ")
        writeString(status.reasonPhrase)
        writeStaticString("\r\n")
        for field in fields { writeHTTP1Field(field.name.rawName, field.value) }
        writeHTTP1Field("Date", date)
        writeHTTP1Field("Server", server)
        writeStaticString("\r\n")
    }

    private mutating func writeHTTP1Field(_ name: String, _ value: String) {
        writeString(name)
        writeStaticString(": ")
        writeString(value)
        writeStaticString("\r\n")
    }
}
