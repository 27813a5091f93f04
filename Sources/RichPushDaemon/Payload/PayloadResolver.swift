import RichPushCore
import RichPushImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns a `rich` event into the alert to show: fetches the payload with Basic auth, checks it, keeps it in the
/// cache and prepares what the alert carries. Whatever goes wrong (401, 404, 410, a corrupt image, the network),
/// the result is still an alert, with the message alone, and the reason to log.
final class PayloadResolver {
    private let gateway: GatewayClient
    private let cache: PayloadCache
    private let imageSize: Int
    private let limits = ImageLimits()
    /// The most text shown in the alert itself; "More" opens all of it.
    static let detailLength = 280
    /// How long the last payload request took, for the verbose log.
    private(set) var lastFetchTime = Duration.zero
    /// This device's installation, which its fetches name once it is known.
    var installationId: String?

    init(gateway: GatewayClient, cache: PayloadCache, imageSize: Int) {
        self.gateway = gateway
        self.cache = cache
        self.imageSize = imageSize
    }

    func alert(richId: Int64, richType: RichType, message: String) -> (alert: Alert, problem: String?) {
        do throws(PayloadProblem) {
            let response: GatewayResponse
            let started = ContinuousClock.now
            do {
                response = try gateway.payload(richId: richId, installationId: installationId, limit: limits.maximumBytes)
                lastFetchTime = .now - started
            } catch {
                lastFetchTime = .now - started
                throw PayloadProblem(error)
            }
            switch richType {
            case .img: return (try imageAlert(richId: richId, message: message, response: response), nil)
            case .url: return (try linkAlert(richId: richId, message: message, response: response), nil)
            case .text: return (try textAlert(richId: richId, message: message, response: response), nil)
            }
        } catch {
            let alert = Alert(richId: richId, richType: richType, summary: Self.summary(of: richType), message: message)
            return (alert, "notification \(richId) is shown without its \(richType.rawValue) payload: \(error)")
        }
    }

    static func summary(of richType: RichType) -> String {
        switch richType {
        case .img: "New image"
        case .url: "New link"
        case .text: "New message"
        }
    }

    private func imageAlert(richId: Int64, message: String, response: GatewayResponse) throws(PayloadProblem) -> Alert {
        guard response.status == 200 else { throw PayloadProblem(GatewayError(response)) }
        let bytes = Data(response.body)
        let image: PixelImage
        do {
            image = try ImageDecoder.decode(bytes, limits: limits, fittingIn: imageSize)
        } catch {
            throw .unusable("the image is not a valid PNG, JPEG or WebP (\(error))")
        }
        let file: String
        do {
            file = try cache.store(response.body, richId: richId, extension: ImageFormat.detect(bytes)?.fileExtension ?? "png")
        } catch {
            throw .unusable("the image cannot be cached: \(error)")
        }
        return Alert(
            richId: richId, richType: .img, summary: Self.summary(of: .img), message: message,
            image: DesktopImage(image), imageFile: file, openTarget: file)
    }

    private func linkAlert(richId: Int64, message: String, response: GatewayResponse) throws(PayloadProblem) -> Alert {
        guard (300..<400).contains(response.status), let location = response.redirectLocation else {
            throw PayloadProblem(GatewayError(response))
        }
        // Only web links are opened: a payload must never make the desktop run a file or a custom scheme.
        guard location.hasPrefix("https://") || location.hasPrefix("http://") else {
            throw .unusable("the link \(location.prefix(80)) is not an http or https URL")
        }
        let host = location.split(separator: "/").dropFirst().first.map(String.init) ?? location
        return Alert(
            richId: richId, richType: .url, summary: host.isEmpty ? Self.summary(of: .url) : host, message: message, detail: location,
            link: location, openTarget: location)
    }

    private func textAlert(richId: Int64, message: String, response: GatewayResponse) throws(PayloadProblem) -> Alert {
        guard response.status == 200 else { throw PayloadProblem(GatewayError(response)) }
        let text = response.text
        var detail = String(text.prefix(Self.detailLength))
        if detail.count < text.count { detail += "…" }
        let file = try? cache.store(response.body, richId: richId, extension: "txt")
        return Alert(
            richId: richId, richType: .text, summary: Self.summary(of: .text), message: message, detail: detail, openTarget: file)
    }
}

/// Why a payload could not go into its alert.
enum PayloadProblem: Error, CustomStringConvertible {
    case gateway(GatewayError)
    case unusable(String)

    init(_ error: GatewayError) {
        self = .gateway(error)
    }

    var description: String {
        switch self {
        case .gateway(.status(401, _, _)): "the gateway refused the credentials (401)"
        case .gateway(.status(404, _, _)): "the gateway does not know it, or not for this user (404)"
        case .gateway(.status(410, _, _)): "it was recalled or has expired (410)"
        case .gateway(let error): "\(error)"
        case .unusable(let reason): reason
        }
    }
}
