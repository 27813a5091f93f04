import CCurl

/// Receives the bytes of a response body as libcurl hands them over.
class BodySink {
    /// Returns false to abort the transfer.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool { true }
}

/// A body collected in memory, up to a limit.
final class CollectingSink: BodySink {
    private(set) var bytes: [UInt8] = []
    let limit: Int
    private(set) var exceeded = false

    init(limit: Int) { self.limit = limit }

    override func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard self.bytes.count + bytes.count <= limit else {
            exceeded = true
            return false
        }
        self.bytes += bytes
        return true
    }
}

/// One libcurl easy handle with the daemon's settings; reused from request to request so the connection to the
/// gateway stays open. Not thread-safe: each thread owns its own.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private let credential: GatewayCredential
    private let caFile: String?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var sink: Unmanaged<BodySink>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    /// libcurl's process-wide setup, run once before the first handle (swift_once makes it thread-safe).
    private static let globalSetup: Void = {
        _ = curl_global_init(rp_curl_global_default)
    }()

    init(credential: GatewayCredential, caFile: String?) {
        _ = Self.globalSetup
        guard let handle = curl_easy_init() else { fatalError("libcurl could not create a handle") }
        self.handle = handle
        self.credential = credential
        self.caFile = caFile
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        sink?.release()
        errorBuffer.deallocate()
    }

    /// Sets up the handle for `request`, writing the body into `sink`; ``perform()`` or a multi handle runs it.
    func prepare(_ request: GatewayRequest, into sink: BodySink) {
        curl_easy_reset(handle)
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        self.sink?.release()
        self.sink = Unmanaged.passRetained(sink)
        errorBuffer[0] = 0

        set(CURLOPT_URL, request.url)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_USERAGENT, "richpushd/1")
        switch credential {
        case .password(let username, let password):
            set(CURLOPT_USERNAME, username)
            set(CURLOPT_PASSWORD, password)
            set(CURLOPT_HTTPAUTH, Int(bitPattern: UInt(rp_curl_auth_basic)))
        case .token(let token):
            set(CURLOPT_XOAUTH2_BEARER, token)
            set(CURLOPT_HTTPAUTH, Int(bitPattern: UInt(rp_curl_auth_bearer)))
        }
        set(CURLOPT_CONNECTTIMEOUT_MS, 10_000)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_TCP_KEEPIDLE, 30)
        set(CURLOPT_TCP_KEEPINTVL, 10)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        if let caFile { set(CURLOPT_CAINFO, caFile) }
        if let timeout = request.timeout { set(CURLOPT_TIMEOUT_MS, Int(timeout / .milliseconds(1))) }
        _ = rp_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)

        switch request.method {
        case .get: set(CURLOPT_HTTPGET, 1)
        case .delete: set(CURLOPT_CUSTOMREQUEST, "DELETE")
        case .post, .put, .patch:
            set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            let body = request.body ?? []
            _ = rp_curl_setopt_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS copies, so the body need not outlive this call.
            if body.isEmpty {
                set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                body.withUnsafeBytes { _ = rp_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
            }
        }
        for header in request.headers { headerList = curl_slist_append(headerList, header) }
        // An empty Expect: stops libcurl from waiting for 100-continue before small bodies.
        headerList = curl_slist_append(headerList, "Expect:")
        _ = rp_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList)

        _ = rp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let sink = Unmanaged<BodySink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            return sink.receive(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        }
        _ = rp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, self.sink!.toOpaque())
    }

    /// Runs the prepared request to its end on this thread.
    func perform() throws(HTTPFailure) -> GatewayResponse {
        let code = curl_easy_perform(handle)
        try check(code)
        return response(body: [])
    }

    /// Sends `request` and collects its body.
    func send(_ request: GatewayRequest) throws(HTTPFailure) -> GatewayResponse {
        let sink = CollectingSink(limit: request.maximumBodyBytes)
        prepare(request, into: sink)
        let code = curl_easy_perform(handle)
        if sink.exceeded { throw HTTPFailure(message: "the response is larger than \(request.maximumBodyBytes) bytes") }
        try check(code)
        return response(body: sink.bytes)
    }

    /// Turns a libcurl result into a failure with libcurl's own sentence.
    func check(_ code: CURLcode) throws(HTTPFailure) {
        guard code != CURLE_OK else { return }
        let detail = String(cString: errorBuffer)
        throw HTTPFailure(message: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
    }

    /// The status and headers of the last exchange, with `body`.
    func response(body: [UInt8]) -> GatewayResponse {
        GatewayResponse(status: status, contentType: info(CURLINFO_CONTENT_TYPE), redirectLocation: info(CURLINFO_REDIRECT_URL), body: body)
    }

    /// The HTTP status of the last response, 0 before one arrived.
    var status: Int {
        var status = 0
        _ = rp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return status
    }

    private func info(_ name: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard rp_curl_getinfo_string(handle, name, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func set(_ option: CURLoption, _ value: Int) {
        _ = rp_curl_setopt_long(handle, option, value)
    }

    private func set(_ option: CURLoption, _ value: String) {
        _ = rp_curl_setopt_string(handle, option, value)
    }
}
