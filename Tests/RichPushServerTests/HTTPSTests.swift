import Foundation
import GatewayTesting
import HubTestServers
import NIOHTTP1
import RichPushCore
import TestSupport
import Testing

@testable import RichPushServer

/// `richpush serve --tls-cert-file --tls-key-file`: HTTPS with HTTP/1.1 and HTTP/2, renewed certificates on SIGHUP,
/// and the clients that speak to it trusting a private CA.
@Suite("Serving HTTPS")
struct HTTPSTests {
    /// A directory with a CA and a certificate it issued for 127.0.0.1, removed afterwards.
    final class Certificates: Sendable {
        let directory: URL
        let authority: TestCertificateAuthority

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            authority = try TestCertificateAuthority(directory: directory)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// A gateway process, not started yet, serving HTTPS with the PEM files given and asked through `caFile`.
    func httpsGateway(certificateFile: String, keyFile: String, caFile: String, more flags: [String] = []) throws -> GatewayProcess {
        try GatewayProcess(extraArguments: ["--tls-cert-file", certificateFile, "--tls-key-file", keyFile] + flags, caFile: caFile)
    }

    /// A gateway process serving HTTPS with `certificates`' server certificate, asked through their CA.
    func withHTTPSGateway(_ certificates: Certificates, _ body: (GatewayProcess) async throws -> Void) async throws {
        let gateway = try httpsGateway(
            certificateFile: certificates.authority.serverCertificateFile, keyFile: certificates.authority.serverKeyFile,
            caFile: certificates.authority.caFile)
        defer { gateway.cleanUp() }
        try await gateway.start()
        try await body(gateway)
    }

    /// Creates alice with her laptop and opens her stream with curl over HTTP/2, written to `output`; returns once its
    /// first bytes have come.
    func openAlicesStream(on gateway: GatewayProcess, trusting caFile: String, into output: String) async throws -> SpawnedProcess {
        _ = try await gateway.addAliceWithLaptop()
        let stream = try SpawnedProcess(
            "/usr/bin/curl",
            [
                "--silent", "--no-buffer", "--http2", "--cacert", caFile, "--user", "alice:alice-password",
                gateway.baseURL + "/api/me/stream?installationId=laptop",
            ],
            output: .file(output))
        guard await eventually(within: .seconds(10), { (try? String(contentsOfFile: output, encoding: .utf8))?.isEmpty == false }) else {
            stream.signal(SIGKILL)
            throw TestFailure("alice's stream never answered")
        }
        return stream
    }

    /// Runs curl trusting `caFile` and answers its exit status and output.
    func curl(_ arguments: [String], trusting caFile: String) async throws -> (status: Int32, output: String) {
        try await SpawnedProcess.run("/usr/bin/curl", ["--silent", "--show-error", "--cacert", caFile] + arguments)
    }

    @Test func clientsChooseHTTP1OrHTTP2ByALPN() async throws {
        let certificates = try Certificates()
        try await withHTTPSGateway(certificates) { gateway in
            for (flag, version) in [("--http1.1", "1.1"), ("--http2", "2")] {
                let answer = try await curl(
                    [flag, "--output", "/dev/null", "--write-out", "%{http_version} %{http_code}", gateway.baseURL + "/health"],
                    trusting: certificates.authority.caFile)
                #expect(answer.output == "\(version) 200")
            }
        }
    }

    @Test func aTLS12ClientOfferingOnlyCBCSuitesIsRefusedWhileECDHEWithAEADIsServed() async throws {
        let certificates = try Certificates()
        try await withHTTPSGateway(certificates) { gateway in
            func handshake(offering ciphers: String) async throws -> (status: Int32, output: String) {
                try await curl(
                    ["--tls-max", "1.2", "--ciphers", ciphers, "--output", "/dev/null", "--write-out", "%{http_code}", gateway.baseURL + "/health"],
                    trusting: certificates.authority.caFile)
            }
            let cbc = try await handshake(offering: "ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES256-SHA:AES128-SHA")
            #expect(cbc.status == 35, "curl's exit status for a failed handshake, not \(cbc.status): \(cbc.output)")
            let aead = try await handshake(offering: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256")
            #expect(aead.status == 0)
            #expect(aead.output == "200")
        }
    }

    @Test func everyAnswerOverHTTPSTellsBrowsersToKeepToHTTPS() async throws {
        let certificates = try Certificates()
        try await withHTTPSGateway(certificates) { gateway in
            for (version, path) in [("--http1.1", "/health"), ("--http2", "/console/app.js"), ("--http2", "/api/users/me")] {
                let answer = try await curl(
                    [version, "--silent", "--output", "/dev/null", "--dump-header", "-", gateway.baseURL + path],
                    trusting: certificates.authority.caFile)
                #expect(answer.output.lowercased().contains("strict-transport-security: max-age=31536000"), "\(path) over \(version)")
            }
        }
        let plain = try GatewayProcess()
        defer { plain.cleanUp() }
        try await plain.start()
        let answer = try await SpawnedProcess.run(
            "/usr/bin/curl", ["--silent", "--output", "/dev/null", "--dump-header", "-", plain.baseURL + "/health"])
        #expect(answer.output.lowercased().contains("x-content-type-options: nosniff"))
        #expect(!answer.output.lowercased().contains("strict-transport-security"))
    }

    @Test func aPayloadIsFetchedOverHTTPSAgainAndAgainAlike() async throws {
        let certificates = try Certificates()
        try await withHTTPSGateway(certificates) { gateway in
            let created = try await gateway.request(
                .POST, "/api/notifications", as: .admin, json: #"{"message":"m","richType":"text","text":"over TLS"}"#)
            let id = try #require(ProcessTests.id(in: created.body))
            // The first fetch fills the caches through the router; the next ones are answered from them.
            for version in ["--http1.1", "--http2"] {
                var fetches: [(status: Int32, output: String)] = []
                for _ in 0..<3 {
                    fetches.append(
                        try await curl(
                            [version, "--user", "admin:\(Credentials.admin.password)", gateway.baseURL + "/api/notifications/\(id)"],
                            trusting: certificates.authority.caFile))
                }
                #expect(fetches.map(\.output) == Array(repeating: "over TLS", count: 3))
            }
        }
    }

    @Test func theSendCommandTrustsTheGatewaysCAThroughCAFile() async throws {
        let certificates = try Certificates()
        try await withHTTPSGateway(certificates) { gateway in
            let passwordFile = certificates.directory.appendingPathComponent("password").path
            try Credentials.admin.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let send = [
                "send", "--server", gateway.baseURL, "--user", "admin", "--password-file", passwordFile, "--message", "m", "--text", "t", "--to",
                "username:admin",
            ]
            let untrusted = try await SpawnedProcess.run(GatewayProcess.executable.path, send)
            #expect(untrusted.status == 4, "the gateway could not be reached: \(untrusted.output)")
            let trusted = try await SpawnedProcess.run(GatewayProcess.executable.path, send + ["--ca-file", certificates.authority.caFile])
            #expect(trusted.status == 0, "\(trusted.output)")
        }
    }

    @Test func aRenewedCertificateIsServedAfterSIGHUPWhileOpenStreamsGoOn() async throws {
        let original = try Certificates()
        let renewed = try Certificates()
        let live = original.directory.appendingPathComponent("live")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        let (certificateFile, keyFile) = (live.appendingPathComponent("cert.pem").path, live.appendingPathComponent("key.pem").path)
        try FileManager.default.copyItem(atPath: original.authority.serverCertificateFile, toPath: certificateFile)
        try FileManager.default.copyItem(atPath: original.authority.serverKeyFile, toPath: keyFile)
        let gateway = try httpsGateway(certificateFile: certificateFile, keyFile: keyFile, caFile: original.authority.caFile)
        defer { gateway.cleanUp() }
        try await gateway.start()
        let streamOutput = live.appendingPathComponent("stream.txt").path
        let stream = try await openAlicesStream(on: gateway, trusting: original.authority.caFile, into: streamOutput)
        defer { stream.signal(SIGKILL) }

        await #expect(try curl(["--output", "/dev/null", gateway.baseURL + "/health"], trusting: renewed.authority.caFile).status != 0)
        for (from, to) in [(renewed.authority.serverCertificateFile, certificateFile), (renewed.authority.serverKeyFile, keyFile)] {
            try FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        gateway.process?.signal(SIGHUP)
        try #require(
            await eventually(within: .seconds(10)) {
                (try? await curl(["--output", "/dev/null", gateway.baseURL + "/health"], trusting: renewed.authority.caFile).status) == 0
            })

        // A new connection, so with the renewed certificate.
        let created = try await curl(
            [
                "--user", "admin:\(Credentials.admin.password)", "--header", "Content-Type: application/json", "--data",
                #"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, gateway.baseURL + "/api/notifications",
            ], trusting: renewed.authority.caFile)
        let id = try #require(ProcessTests.id(in: created.output), "\(created.output)")
        try #require(
            await eventually(within: .seconds(10)) {
                (try? String(contentsOfFile: streamOutput, encoding: .utf8))?.contains(#""richId":"\#(id)""#) == true
            })
        #expect(gateway.log.contains("TLS certificate reloaded"))
    }

    @Test func anHTTP2ConnectionThatSignedInNoLongerCountsAgainstItsAddress() async throws {
        let certificates = try Certificates()
        let gateway = try httpsGateway(
            certificateFile: certificates.authority.serverCertificateFile, keyFile: certificates.authority.serverKeyFile,
            caFile: certificates.authority.caFile, more: ["--max-unauthenticated-connections-per-address", "1"])
        defer { gateway.cleanUp() }
        try await gateway.start()
        // An HTTP/2 connection held open by a signed-in stream: its requests are streams of their own.
        let streamOutput = certificates.directory.appendingPathComponent("stream.txt").path
        let stream = try await openAlicesStream(on: gateway, trusting: certificates.authority.caFile, into: streamOutput)
        defer { stream.signal(SIGKILL) }
        let another = try await curl(
            ["--http1.1", "--output", "/dev/null", "--write-out", "%{http_code}", gateway.baseURL + "/health"],
            trusting: certificates.authority.caFile)
        #expect(another.output == "200", "the signed-in HTTP/2 connection still counts: \(another.output)")
    }

    @Test func aKeyThatIsNotTheCertificatesStopsTheStartWithASentence() async throws {
        let first = try Certificates()
        let second = try Certificates()
        let start = try await SpawnedProcess.run(
            GatewayProcess.executable.path,
            [
                "serve", "--port", "0", "--data-dir", first.directory.appendingPathComponent("data").path, "--tls-cert-file",
                first.authority.serverCertificateFile, "--tls-key-file", second.authority.serverKeyFile,
            ])
        #expect(start.status != 0)
        #expect(start.output.contains("is not the key of the certificate in \(first.authority.serverCertificateFile)"))
    }

    @Test func plainHTTPOnEveryInterfaceWarnsThatCredentialsCrossTheNetworkReadable() async throws {
        let gateway = try GatewayProcess(extraArguments: ["--hostname", "0.0.0.0"])
        defer { gateway.cleanUp() }
        try await gateway.start()
        #expect(gateway.log.contains("serving plain HTTP on a non-loopback address"))
    }

    @Test(arguments: [("tls-cert-file", "--tls-cert-file needs --tls-key-file"), ("tls-key-file", "--tls-key-file needs --tls-cert-file")])
    func aCertificateOrAKeyAloneStopsTheStartNamingTheOther(given: String, sentence: String) {
        #expect {
            try ServerConfiguration(SettingSources(flags: [given: ["/etc/richpush/x.pem"]]))
        } throws: { error in
            (error as? SettingError)?.description.hasPrefix(sentence) == true
        }
    }
}
