import Logging
import ServiceLifecycle
import UnixSignals

/// Reads the serving certificate again on `SIGHUP`, as certbot's and most renewal hooks expect: new connections get
/// the renewed pair, open connections and their streams go on.
struct CertificateReloader: Service {
    let certificate: ServingCertificate
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                do {
                    try certificate.reload()
                    logger.notice("TLS certificate reloaded", metadata: ["richpush.tls.certificate": "\(certificate.files.certificateChain)"])
                } catch {
                    logger.error("TLS certificate not reloaded; the previous one is still served", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
