import NIOCore
import NIOSSL
import Synchronization

/// The PEM files of `--tls-cert-file` and `--tls-key-file`.
public struct TLSFiles: Sendable {
    /// The certificate first, then the intermediates of its chain.
    public var certificateChain: String
    public var privateKey: String

    public init(certificateChain: String, privateKey: String) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}

/// The certificate chain and key the gateway serves HTTPS with, read from their PEM files and read again on
/// ``reload()``: every handshake takes the pair current at its hello, so a renewed certificate reaches new
/// connections while those already open keep theirs.
final class ServingCertificate: Sendable {
    typealias Files = TLSFiles

    private struct Pair: Sendable {
        var chain: [NIOSSLCertificate]
        var key: NIOSSLPrivateKey
    }

    let files: Files
    private let current: Mutex<Pair>

    /// Reads both files; a missing, unreadable or mismatched file is a configuration error named in a sentence.
    init(files: Files) throws(ConfigurationError) {
        self.files = files
        current = Mutex(try Self.read(files))
    }

    /// Reads the files again; on any error the pair served so far stays.
    func reload() throws(ConfigurationError) {
        let pair = try Self.read(files)
        current.withLock { $0 = pair }
    }

    /// TLS 1.2's suites as Mozilla's intermediate profile has them: ECDHE key exchange with an AEAD cipher, so forward
    /// secrecy, and none of the CBC suites padding-oracle attacks go after. TLS 1.3's suites are all of that kind.
    static let cipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// A server TLS configuration (TLS 1.2 and later, ECDHE and AEAD only) whose every handshake asks this object for
    /// the pair.
    func serverConfiguration() -> TLSConfiguration {
        let pair = current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = Self.cipherSuites
        configuration.sslContextCallback = { [self] _, promise in
            let pair = current.withLock { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = pair.chain.map { .certificate($0) }
            override.privateKey = .privateKey(pair.key)
            promise.succeed(override)
        }
        return configuration
    }

    private static func read(_ files: Files) throws(ConfigurationError) -> Pair {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain)
        } catch {
            throw ConfigurationError("tls-cert-file \(files.certificateChain) holds no PEM certificate we can read: \(error)")
        }
        guard !chain.isEmpty else { throw ConfigurationError("tls-cert-file \(files.certificateChain) holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.privateKey, format: .pem)
        } catch {
            throw ConfigurationError("tls-key-file \(files.privateKey) holds no PEM private key we can read: \(error)")
        }
        do {
            // A context from the pair makes BoringSSL check that the key is the certificate's.
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw ConfigurationError("tls-key-file \(files.privateKey) is not the key of the certificate in \(files.certificateChain)")
        }
        return Pair(chain: chain, key: key)
    }
}
