import Foundation
import NIOHTTP1

extension HubVerdict {
    /// What came of a raw notification: WNS's answer, a channel host refused, or no answer.
    static func wns(_ answer: EndpointAnswer) -> Result<HubVerdict, any Error> {
        switch answer {
        case .answered(let response):
            .success(
                .wns(
                    status: response.status, errorDescription: response.headers.first(name: "x-wns-error-description"),
                    retryAfter: response.retryAfter))
        case .refused(let outcome): .success(HubVerdict(settled: outcome))
        case .unreachable(let error): .failure(error)
        }
    }

    /// What a WNS answer to a raw notification means; `errorDescription` is its `X-WNS-Error-Description`.
    static func wns(status: Int, errorDescription: String?, retryAfter: TimeInterval?) -> HubVerdict {
        let detail = errorDescription.map { ": \($0)" } ?? ""
        switch status {
        case 200:
            return .sent
        case 401:
            return .credentialRejected
        case 403:
            return .configuration(
                code: "wns.forbidden", message: "WNS answered 403\(detail) (the token is not for this app: check the client id and secret)")
        case 404:
            return .deviceGone(code: "wns.channelNotFound", message: "WNS answered 404: the channel is not valid\(detail)")
        case 410:
            return .deviceGone(code: "wns.channelExpired", message: "WNS answered 410: the channel expired\(detail)")
        case 406:
            return .retry(after: retryAfter ?? 0, code: "wns.throttled", message: "WNS answered 406: the channel is throttled\(detail)")
        case 429:
            return .retry(after: retryAfter ?? 0, code: "wns.tooManyRequests", message: "WNS answered 429\(detail)")
        case 413:
            return .failed(code: "wns.payloadTooLarge", message: "WNS answered 413: the notification is over 5 KB\(detail)")
        case 400:
            return .failed(code: "wns.badRequest", message: "WNS answered 400\(detail)")
        case 500...599:
            return .retry(after: retryAfter ?? 0, code: "wns.unavailable", message: "WNS answered \(status)\(detail)")
        default:
            return .failed(code: "wns.status\(status)", message: "WNS answered \(status)\(detail)")
        }
    }
}
