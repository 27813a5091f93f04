/// One HTTP request to the gateway.
struct GatewayRequest: Sendable {
    enum Method: String, Sendable {
        case get = "GET"
        case put = "PUT"
        case patch = "PATCH"
        case post = "POST"
        case delete = "DELETE"
    }

    var method: Method
    var url: String
    var headers: [String] = []
    var body: [UInt8]?
    /// The whole exchange; nil for a stream that lasts as long as it is alive.
    var timeout: Duration? = .seconds(30)
    /// A larger body is an error: nothing the gateway serves legitimately is bigger than an upload may be.
    var maximumBodyBytes = 16 * 1024 * 1024

    static func json(_ method: Method, _ url: String, _ json: String) -> GatewayRequest {
        GatewayRequest(method: method, url: url, headers: ["Content-Type: application/json"], body: Array(json.utf8))
    }
}

/// The gateway's answer.
struct GatewayResponse: Sendable, Equatable {
    var status: Int
    var contentType: String?
    /// The absolute `Location` of a redirect.
    var redirectLocation: String?
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The exchange did not complete: no connection, a timeout, a reset, a body over the limit.
struct HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    var message: String

    var description: String { message }
}
