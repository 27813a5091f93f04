/// How the API answers every refusal: `{"error": {"status": 422, "code": "image.corrupt", "message": "…"}}`.
///
/// `code` is stable for programs to match on; `message` is a sentence for people; `status` repeats the HTTP status so
/// a body read on its own still says it.
public struct ErrorJSON: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var status: Int
        public var code: String
        public var message: String

        public init(status: Int, code: String, message: String) {
            self.status = status
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(error: Detail) {
        self.error = error
    }
}
