import HTTPTypes
import NIOCore

extension ByteBuffer {
    /// Writes the start of an HTTP/1.1 response head, its status line and `fields`, as NIOHTTP1's encoder would, for
    /// an answer that goes to the socket below the HTTP handlers; ``writeHTTP1HeadEnd(date:server:)`` ends it. HTTP
    /// types already refused any name or value that could break the framing.
    mutating func writeHTTP1StatusAndFields(_ status: HTTPResponse.Status, _ fields: HTTPFields) {
        writeStaticString("HTTP/1.1 ")
        let code = status.code
        writeInteger(UInt8(ascii: "0") + UInt8(code / 100))
        writeInteger(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        writeInteger(UInt8(ascii: "0") + UInt8(code % 10))
        writeStaticString(" ")
        writeString(status.reasonPhrase)
        writeStaticString("\r\n")
        for field in fields { writeHTTP1Field(field.name.rawName, field.value) }
    }

    /// Ends a head begun by ``writeHTTP1StatusAndFields(_:_:)`` with the fields every answer's head ends with.
    mutating func writeHTTP1HeadEnd(date: String, server: String) {
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
