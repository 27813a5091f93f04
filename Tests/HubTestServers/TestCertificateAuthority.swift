import Crypto
public import Foundation
public import NIOSSL
import SwiftASN1
import X509

/// A throwaway certificate authority and a server certificate it issued for `localhost` and `127.0.0.1`, so a
/// loopback server can speak TLS that a client trusts only through `RICHPUSH_TLS_CA_FILE`.
public struct TestCertificateAuthority: Sendable {
    /// The CA certificate in PEM, written to ``caFile``.
    public let caPEM: String
    /// A file holding ``caPEM``, for `--tls-ca-file`.
    public let caFile: String
    /// The server certificate and its key in PEM files, for a loopback server that is not written in Swift.
    public let serverCertificateFile: String
    public let serverKeyFile: String
    let serverCertificate: NIOSSLCertificate
    let serverKey: NIOSSLPrivateKey

    public init(directory: URL) throws {
        let now = Date.now
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("richpush test CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: caName,
            subject: try DistinguishedName { CommonName("localhost") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        caPEM = try ca.serializeAsPEM().pemString
        caFile = directory.appendingPathComponent("test-ca.pem").path
        try caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        serverCertificateFile = directory.appendingPathComponent("test-server.pem").path
        serverKeyFile = directory.appendingPathComponent("test-server-key.pem").path
        try server.serializeAsPEM().pemString.write(toFile: serverCertificateFile, atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(toFile: serverKeyFile, atomically: true, encoding: .utf8)
        serverCertificate = try NIOSSLCertificate(bytes: Array(try server.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
    }

    /// A server configuration offering HTTP/2 first, as APNs does.
    public func serverTLSConfiguration() -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(serverCertificate)], privateKey: .privateKey(serverKey))
        tls.applicationProtocols = ["h2", "http/1.1"]
        return tls
    }
}
