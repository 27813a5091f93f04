import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import RichPushCore

/// The work of `richpush send` and `richpush status` once their settings are read: speaks to the gateway, writes
/// what happens, and answers the exit status.
public struct CommandRunner: Sendable {
    let client: APIClient
    let terminal: Terminal
    let follower: DeliveryFollower

    public init(client: APIClient, terminal: Terminal, follower: DeliveryFollower? = nil) {
        self.client = client
        self.terminal = terminal
        self.follower = follower ?? DeliveryFollower(client: client)
    }

    /// Runs `body` with a runner whose HTTP client lives as long as the command, then shuts the client down.
    public static func run(
        _ connection: Connection, terminal: Terminal = .standard, _ body: (CommandRunner) async -> CommandExit
    ) async -> CommandExit {
        var configuration = HTTPClient.Configuration()
        // A gateway that refuses the connection is reported at once, not retried until the request times out.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        if let caFile = connection.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
        }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let client = APIClient(server: connection.server, credential: connection.credential, httpClient: http)
        let exit = await body(CommandRunner(client: client, terminal: terminal))
        try? await http.shutdown()
        return exit
    }

    /// Uploads the image if there is one, creates the notification and, with `wait`, follows it to a final state. A
    /// notification its audience gave no device is refused (exit 3) once followed, however `delivered` its state: a
    /// typo in the audience must not look like a campaign that reached everyone.
    public func send(_ plan: SendPlan) async -> CommandExit {
        do {
            var imageId: Int64?
            if case .image(let path, let bytes) = plan.payload {
                let image = try await client.uploadImage(bytes)
                imageId = image.id
                if !plan.json { terminal.write("image \(image.id): \(path), \(image.width)×\(image.height), \(image.bytes) bytes\n") }
            }
            let notification = try await client.createNotification(plan.notification(imageId: imageId))
            guard plan.wait else {
                terminal.write(plan.json ? Self.json(notification) : Self.describe(notification) + "\n")
                return .success
            }
            if !plan.json { terminal.write(Self.describe(notification) + "\n") }
            let status = try await follow(id: notification.id, timeout: plan.timeout, json: plan.json)
            if status.state.isFinal, status.targeted == 0 {
                terminal.writeError("richpush: notification \(notification.id) reached no device: no installation matches \(notification.audience)\n")
                return .refused
            }
            return CommandExit(status.state)
        } catch {
            return report(error, json: plan.json)
        }
    }

    /// Writes the status of one notification; with `wait`, follows it first. The exit status tells its state.
    public func status(id: Int64, wait: Bool, json: Bool, timeout: Duration? = nil) async -> CommandExit {
        do {
            if wait { return CommandExit(try await follow(id: id, timeout: timeout, json: json).state) }
            let status = try await client.status(id: id)
            terminal.write(json ? Self.json(status) : ProgressReport(isInteractive: false).finish(status))
            return CommandExit(status.state)
        } catch {
            return report(error, json: json)
        }
    }

    /// Starts, updates or ends a Live Activity and writes what the gateway answered.
    public func activity(_ plan: ActivityPlan) async -> CommandExit {
        do {
            let activity = try await client.activity(plan)
            let said =
                switch plan.step {
                case .start: "activity \(activity.id) started on the iPhones of \(activity.audience)"
                case .update: "activity \(activity.id) updated"
                case .end: "activity \(activity.id) ended"
                }
            terminal.write(plan.json ? Self.json(activity) : said + "\n")
            return .success
        } catch {
            return report(error, json: plan.json)
        }
    }

    /// Writes every delivery of one notification to standard output as CSV, as the gateway streams it.
    public func export(id: Int64) async -> CommandExit {
        do {
            let terminal = self.terminal
            try await client.exportDeliveries(id: id) { terminal.writeBytes($0) }
            return .success
        } catch {
            return report(error, json: false)
        }
    }

    /// Follows one notification until a final state or `timeout`, writing its progress; answers its last status.
    private func follow(id: Int64, timeout: Duration?, json: Bool) async throws -> StatusJSON {
        let report = ProgressReport(isInteractive: terminal.isInteractive, width: terminal.width)
        let terminal = self.terminal
        let status = try await follower.follow(id: id, timeout: timeout) { status in
            if !json && !status.state.isFinal { terminal.write(report.update(status)) }
        }
        terminal.write(json ? Self.json(status) : report.finish(status))
        if !status.state.isFinal, let timeout {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            terminal.writeError("richpush: notification \(id) is still \(status.state.rawValue) after \(String(format: "%g", seconds)) seconds\n")
        }
        return status
    }

    /// The sentence on standard error; with `--json` also the error object on standard output, for scripts.
    private func report(_ error: any Error, json: Bool) -> CommandExit {
        let clientError = (error as? ClientError) ?? .unexpectedAnswer("\(error)")
        terminal.writeError("richpush: \(clientError)\n")
        if json {
            let (status, code): (Int?, String) =
                switch clientError {
                case .refused(let status, let code, _): (status, code)
                case .unreachable: (nil, "client.unreachable")
                case .unexpectedAnswer: (nil, "client.unexpectedAnswer")
                }
            terminal.write(Self.json(CommandErrorJSON(error: .init(status: status, code: code, message: clientError.description))))
        }
        return CommandExit(clientError)
    }

    /// The API's error body (``ErrorJSON``) as the command writes it, without a status for an error that never reached
    /// the gateway.
    private struct CommandErrorJSON: Encodable {
        struct Detail: Encodable {
            var status: Int?
            var code: String
            var message: String
        }
        var error: Detail
    }

    static func describe(_ notification: NotificationJSON) -> String {
        switch notification.state {
        case .scheduled: "notification \(notification.id) scheduled for \(notification.deliverAt) to \(notification.audience)"
        default: "notification \(notification.id) \(notification.state.rawValue) to \(notification.audience)"
        }
    }

    /// One compact JSON document per line, keys sorted, for `jq` and friends.
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
