import AsyncHTTPClient
public import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
public import Logging
import NIOCore
import RichPushCore
import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Builds the gateway: opens and migrates the store, creates the first admin if asked, and wires the routes, the
/// dispatcher and the streams into one application.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 8080
/// try await buildApplication(configuration).runService()
/// ```
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    let logger = logger ?? gatewayLogger(configuration)
    let store = try await openStore(configuration, logger: logger)
    do {
        return try await buildApplication(configuration, store: store, logger: logger)
    } catch {
        try? await store.close()
        throw error
    }
}

/// The gateway's logger, at the configured level.
func gatewayLogger(_ configuration: ServerConfiguration) -> Logger {
    var logger = Logger(label: "richpush")
    logger.logLevel = configuration.logLevel
    return logger
}

func buildApplication(_ configuration: ServerConfiguration, store: Store, logger: Logger) async throws -> some ApplicationProtocol {
    var store = store
    // Read before any HTTP client is made: async-http-client traps on a client dropped without its shutdown.
    let certificate = try configuration.tlsFiles.map { files throws(ConfigurationError) in try ServingCertificate(files: files) }
    let hasher = PasswordHasher(cost: configuration.bcryptCost)
    try await bootstrapAdmin(configuration, store: store, hasher: hasher, logger: logger)

    let broadcaster = EventBroadcaster(maximumStreamsPerUser: configuration.maximumStreamsPerUser)
    let direct = DirectHub(channel: StoreDirectChannel(events: store.events, broadcaster: broadcaster))
    let hubs: HubRegistry
    do {
        hubs = try await HubRegistry.configured(by: configuration.hubs, direct: direct, logger: logger)
    } catch {
        throw ConfigurationError(error.description)
    }
    if hubs.mirror != nil { store.mirroredPlatforms = hubs.audiencePlatforms }
    store.audiencePlatforms = hubs.audiencePlatforms
    let metrics = GatewayMetrics()
    let fetches = FetchRecorder(feeds: store.feeds, logger: logger)
    let connections = UnauthenticatedConnections(
        limitPerAddress: configuration.maximumUnauthenticatedConnectionsPerAddress, trustedProxies: configuration.trustedProxies)
    let gateway = Gateway(
        configuration: configuration,
        store: store,
        authenticator: try await Authenticator(
            store: store, hasher: hasher, revalidateAfter: configuration.credentialRevalidation, metrics: metrics),
        hasher: hasher,
        broadcaster: broadcaster,
        stream: DirectStream(
            events: store.events, installations: store.installations, broadcaster: broadcaster,
            reader: StreamEventReader(pageSize: DirectStream.pageSize, read: store.events.events),
            metrics: metrics),
        dispatcherDoorbell: Doorbell(),
        statePushDoorbell: Doorbell(),
        webhookDoorbell: Doorbell(),
        activityDoorbell: Doorbell(),
        outboxes: OutboxQueue(),
        linkSigner: LinkSigner(secret: try await store.sharedSettings.value("payload-link-key") { LinkSigner.makeSecret() }),
        payloads: PayloadMemory(
            notifications: store.notifications, images: store.images, fetches: fetches,
            egress: configuration.payloadEgressLimit.map { _ in PayloadEgress(clock: configuration.clock) },
            notificationTimeToLive: configuration.payloadNotificationTimeToLive),
        metrics: metrics,
        connections: connections,
        rateLimits: RateLimits(requestsPerMinute: configuration.rateLimit, sendsPerMinute: configuration.sendRateLimit),
        webPushPublicKey: hubs.webPushPublicKey
    )
    var dispatcherLogger = logger
    dispatcherLogger[metadataKey: "richpush.service"] = "dispatcher"
    let circuits = HubCircuits(logger: dispatcherLogger)
    let dispatcher = Dispatcher(
        outbox: store.outbox, mirrorQueue: store.mirrorQueue,
        hubs: hubs, circuits: circuits,
        doorbell: gateway.dispatcherDoorbell,
        policy: .init(
            batchSize: configuration.dispatchBatchSize, batchesInFlight: configuration.dispatchBatchesInFlight,
            lease: configuration.dispatchLease, idleInterval: configuration.dispatchIdleInterval,
            recordWindow: configuration.dispatchRecordWindow, defaultLifetime: configuration.defaultTTL,
            campaignLimits: configuration.campaignLimits),
        clock: configuration.clock,
        imageLinks: configuration.publicURL.map { AlertImageLinks(publicURL: $0, signer: gateway.linkSigner) },
        egressLimit: configuration.payloadEgressLimit.flatMap { limit in
            gateway.payloads.egress.map { egress in
                EgressLimit(
                    limit: limit, egress: egress, shared: store.outbox.isShared ? store.payloadEgress : nil, clock: configuration.clock,
                    logger: dispatcherLogger)
            }
        },
        logger: dispatcherLogger
    )
    var fallbackLogger = logger
    fallbackLogger[metadataKey: "richpush.service"] = "fallbacks"
    // Fallbacks fall due at their deadlines, which the dispatcher sleeps until: nothing rings its doorbell but a stop.
    // A deadline is a minute at least, so a look a second finds one soon enough, and costs a gateway without
    // fallbacks one small read a second.
    var fallbackPolicy = dispatcher.policy
    fallbackPolicy.idleInterval = max(fallbackPolicy.idleInterval, .seconds(1))
    let fallbacks = Dispatcher(
        outbox: store.fallbacks, mirrorQueue: nil, hubs: hubs, circuits: circuits, doorbell: Doorbell(), policy: fallbackPolicy,
        clock: configuration.clock, imageLinks: dispatcher.imageLinks, settle: { await fetches.flushed() }, logger: fallbackLogger,
        counted: .fallbacks)
    var statePushLogger = logger
    statePushLogger[metadataKey: "richpush.service"] = "state-pushes"
    let statePushes = StatePushDispatcher(
        statePushes: store.statePushes, hubs: hubs, circuits: circuits, doorbell: gateway.statePushDoorbell, policy: dispatcher.policy,
        clock: configuration.clock,
        logger: statePushLogger)
    var webhookLogger = logger
    webhookLogger[metadataKey: "richpush.service"] = "webhooks"
    let outboundClients: PinnedHTTPClients
    do {
        outboundClients = try PinnedHTTPClients(
            caFile: configuration.hubs.tlsCAFile, policy: configuration.installationRules.outboundAddresses)
    } catch {
        throw ConfigurationError(error.description)
    }
    let webhookSender = WebhookSender(
        webhooks: store.webhooks, clients: outboundClients, doorbell: gateway.webhookDoorbell,
        policy: .init(idleInterval: configuration.dispatchIdleInterval), clock: configuration.clock, logger: webhookLogger)
    var activityLogger = logger
    activityLogger[metadataKey: "richpush.service"] = "live-activities"
    let activityDispatcher = ActivityDispatcher(
        activities: store.activities, hubs: hubs, doorbell: gateway.activityDoorbell, policy: dispatcher.policy, clock: configuration.clock,
        logger: activityLogger)
    var services: [any Service] = [
        ResourceCloser(store: store, hubs: hubs, fetches: fetches, outboundClients: outboundClients), dispatcher, fallbacks, statePushes,
        webhookSender, activityDispatcher,
        StreamHeartbeats(broadcaster: broadcaster, interval: configuration.heartbeatInterval, clock: configuration.heartbeatClock),
        OutboxCompleter(
            outbox: store.outbox, queue: gateway.outboxes, doorbell: gateway.dispatcherDoorbell, lease: configuration.dispatchLease,
            clock: configuration.clock,
            logger: dispatcherLogger),
    ]
    if let endpoint = configuration.otelEndpoint {
        var tracingLogger = logger
        tracingLogger[metadataKey: "richpush.service"] = "tracing"
        // First, so it stops last: the spans of the dispatchers' last batches go out with its final flush.
        services.insert(GatewayTracing.start(endpoint: endpoint, logger: tracingLogger), at: 0)
    }
    if let certificate {
        services.append(CertificateReloader(certificate: certificate, logger: logger))
    } else if !configuration.listensOnLoopbackOnly {
        logger.warning(
            "serving plain HTTP on a non-loopback address: passwords and tokens cross the network readable; give --tls-cert-file and --tls-key-file, or listen on 127.0.0.1 behind a TLS proxy",
            metadata: ["richpush.address": "\(configuration.hostname)"])
    }
    if store.isShared {
        // Other processes write to the same store: hear their events and new work, and count their failed sign-ins.
        services.append(
            StoreSignalListener(
                store: store, broadcaster: broadcaster, dispatcherDoorbell: gateway.dispatcherDoorbell, logger: logger))
        services.append(SignInThrottleSync(signInFailures: store.signInFailures, throttle: gateway.authenticator.throttle, logger: logger))
    }
    let startupLogger = logger
    let scheme = certificate == nil ? "http" : "https"
    var app = Application(
        responder: MethodRouting(buildRouter(gateway, actions: ActionRunner(feeds: store.feeds, clients: outboundClients, logger: logger))),
        server: httpServer(gateway, certificate: certificate),
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "richpush"),
        // Services stop in reverse order: the store and the hub connections close after the dispatcher has finished
        // its batch.
        services: services,
        onServerRunning: { channel in
            startupLogger.notice(
                "richpush listening",
                metadata: ["richpush.address": "\(channel.localAddress?.description ?? "?")", "richpush.scheme": "\(scheme)"])
        },
        logger: logger
    )
    app.logger = logger
    return app
}

/// HTTP/1.1 with the connection guards, the headers every answer carries and the payload fast path; with a
/// certificate, HTTPS with HTTP/1.1 or HTTP/2 as the client's ALPN asks, each HTTP/2 stream with the same handlers.
private func httpServer(_ gateway: Gateway, certificate: ServingCertificate?) -> HTTPServerBuilder {
    let policy = RequestDeadlines.Policy(
        headerTimeout: TimeAmount(gateway.configuration.headerTimeout), idleTimeout: TimeAmount(gateway.configuration.idleTimeout))
    let cors = gateway.configuration.corsPolicy
    let replies = MemoryPayloadReplies(
        authenticator: gateway.authenticator, payloads: gateway.payloads, clock: gateway.configuration.clock, metrics: gateway.metrics)
    /// Each connection's own handlers, in the order a request passes them.
    @Sendable func connectionHandlers() -> [any RemovableChannelHandler] {
        var handlers: [any RemovableChannelHandler] = [SecurityHeaders(overTLS: certificate != nil)]
        // Without --cors-origins no answer carries CORS headers: the payload path does without the handler.
        if !cors.origins.isEmpty { handlers.append(CORSHeaders(policy: cors)) }
        handlers += [
            SessionCookies(), RequestDeadlines(policy: policy),
            PayloadFastPath(replies: replies, connections: gateway.connections, wire: HTTPTypesPayloadWire()),
            StreamFastPath(stream: gateway.stream, authenticator: gateway.authenticator, connections: gateway.connections),
        ]
        return handlers
    }
    let streamConfiguration = HTTP1Channel.Configuration(additionalChannelHandlers: connectionHandlers())
    return HTTPServerBuilder { responder in
        guard let certificate else {
            let http1 = HTTP1Channel(responder: responder, configuration: streamConfiguration)
            // The fast path below the HTTP types codec writes its answers past the handlers that add CORS headers.
            guard cors.origins.isEmpty else { return GuardedChannel(base: http1, connections: gateway.connections) }
            let plain = PlainHTTP1Channel(base: http1, replies: replies, connections: gateway.connections)
            return GuardedChannel(base: plain, connections: gateway.connections)
        }
        return GuardedChannel(
            base: try HTTP2UpgradeChannel(
                tlsConfiguration: certificate.serverConfiguration(),
                configuration: .init(idleTimeout: gateway.configuration.idleTimeout, streamConfiguration: streamConfiguration),
                responder: responder),
            connections: gateway.connections, handshakeTimeout: policy.headerTimeout)
    }
}

func buildRouter(_ gateway: Gateway, actions: ActionRunner) -> Router<RichPushRequestContext> {
    let router = Router(context: RichPushRequestContext.self)
    if gateway.configuration.otelEndpoint != nil {
        // A span of every request, the route's pattern its name, a `traceparent` the client sent its parent.
        router.add(middleware: TracingMiddleware())
    }
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: PathValidationMiddleware())
    router.add(middleware: StaticFiles(directory: gateway.configuration.publicDirectory))
    // After the static files, which keep their gzip made once.
    router.add(middleware: ResponseCompression())
    OperationsController(store: gateway.store, metrics: gateway.metrics, broadcaster: gateway.broadcaster).addRoutes(to: router)

    let api = router.group("api")
    PayloadController(
        payloads: gateway.payloads, clock: gateway.configuration.clock, metrics: gateway.metrics, linkSigner: gateway.linkSigner,
        connections: gateway.connections, authenticator: gateway.authenticator, trustedProxies: gateway.configuration.trustedProxies
    ).addRoutes(to: api)
    WebPushKeyController(publicKey: gateway.webPushPublicKey).addRoutes(to: api)
    let credentials = CredentialsAuthenticator(
        authenticator: gateway.authenticator, rateLimits: gateway.rateLimits, trustedProxies: gateway.configuration.trustedProxies)
    let admission = CallerAdmission(connections: gateway.connections, rateLimits: gateway.rateLimits)
    let signedIn = api.group().add(middleware: credentials)
    let authenticated = signedIn.group().add(middleware: admission)
    let library = ImageLibrary(
        images: gateway.store.images, limits: gateway.configuration.imageLimits, directory: gateway.configuration.imageDirectory)
    let registrar = Registrar(
        installations: gateway.store.installations, maximumInstallationsPerUser: gateway.configuration.maximumInstallationsPerUser,
        dispatcherDoorbell: gateway.dispatcherDoorbell, rules: gateway.configuration.installationRules)
    UserController(users: gateway.store.users, hasher: gateway.hasher, credentials: gateway.authenticator.cache).addRoutes(to: authenticated)
    TokenController(tokens: gateway.store.tokens, cache: gateway.authenticator.cache).addRoutes(to: authenticated)
    SessionController(
        tokens: gateway.store.tokens, cache: gateway.authenticator.cache, overTLS: gateway.configuration.tlsFiles != nil
    ).addRoutes(to: authenticated)
    AuditController(audit: gateway.store.audit).addRoutes(to: authenticated)
    ImageController(imageLimits: gateway.configuration.imageLimits, metrics: gateway.metrics, library: library).addRoutes(to: authenticated)
    let notifications = NotificationController(
        notifications: gateway.store.notifications, results: gateway.store.results, statePushes: gateway.store.statePushes,
        images: gateway.store.images, templates: gateway.store.templates, library: library, payloads: gateway.payloads,
        linkSigner: gateway.linkSigner, broadcaster: gateway.broadcaster,
        dispatcherDoorbell: gateway.dispatcherDoorbell, statePushDoorbell: gateway.statePushDoorbell, outboxes: gateway.outboxes,
        rateLimits: gateway.rateLimits,
        metrics: gateway.metrics, clock: gateway.configuration.clock, defaultTimeZone: gateway.configuration.defaultTimeZone,
        defaultFallbackAfter: gateway.configuration.fallbackAfter,
        allowsCriticalAlerts: gateway.configuration.allowsCriticalAlerts
    )
    notifications.addRoutes(to: authenticated)
    RetryController(outbox: gateway.store.outbox, dispatcherDoorbell: gateway.dispatcherDoorbell, clock: gateway.configuration.clock)
        .addRoutes(to: authenticated)
    ResultsController(notifications: gateway.store.notifications, results: gateway.store.results, fetches: gateway.payloads.fetches).addRoutes(
        to: authenticated)
    AudienceController(installations: gateway.store.installations).addRoutes(to: authenticated)
    TemplateController(templates: gateway.store.templates, maximumTemplatesPerUser: gateway.configuration.maximumTemplatesPerUser).addRoutes(
        to: authenticated)
    InstallationController(installations: gateway.store.installations, users: gateway.store.users, registrar: registrar).addRoutes(to: authenticated)
    RegistrationController(installations: gateway.store.installations, registrar: registrar).addRoutes(to: authenticated)
    SegmentController(
        installations: gateway.store.installations, protectedTagPrefixes: gateway.configuration.protectedTagPrefixes,
        dispatcherDoorbell: gateway.dispatcherDoorbell
    ).addRoutes(to: authenticated)
    FeedController(
        feeds: gateway.store.feeds, installations: gateway.store.installations, broadcaster: gateway.broadcaster, clock: gateway.configuration.clock,
        statePushDoorbell: gateway.statePushDoorbell
    ).addRoutes(to: authenticated)
    ActivityController(
        activities: gateway.store.activities, installations: gateway.store.installations, doorbell: gateway.activityDoorbell,
        clock: gateway.configuration.clock
    ).addRoutes(to: authenticated)
    ActionController(
        feeds: gateway.store.feeds, runner: actions, broadcaster: gateway.broadcaster, clock: gateway.configuration.clock,
        statePushDoorbell: gateway.statePushDoorbell
    ).addRoutes(to: authenticated)
    WebhookController(
        webhooks: gateway.store.webhooks, outboundAddresses: gateway.configuration.installationRules.outboundAddresses,
        senderDoorbell: gateway.webhookDoorbell, clock: gateway.configuration.clock
    ).addRoutes(to: authenticated)
    // ntfy's publish paths are outside /api, where ntfy's clients send them.
    NtfyController(notifications: notifications).addRoutes(to: router.group().add(middleware: credentials).add(middleware: admission))
    StreamController(stream: gateway.stream).addRoutes(
        to: signedIn.group().add(middleware: CallerAdmission(connections: gateway.connections, rateLimits: nil)))
    return router
}

/// The store the configuration names: PostgreSQL for a `database-url`, SQLite under the data directory otherwise. A
/// wrong database address, password or name is a configuration error.
func openStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> Store {
    guard let url = configuration.databaseURL else {
        return try await Store.openSQLite(directory: configuration.dataDirectory, logger: logger)
    }
    let engine: PostgresEngine
    do {
        engine = try await PostgresEngine.open(url: url, logger: logger)
    } catch let error as PostgresEngineError {
        throw ConfigurationError("database-url: \(error.description)")
    }
    return try await Store.open(engine: engine, logger: logger)
}

/// Creates the first admin on an empty store when a password is configured.
private func bootstrapAdmin(_ configuration: ServerConfiguration, store: Store, hasher: PasswordHasher, logger: Logger) async throws {
    guard let password = configuration.adminPassword, try await store.users.count() == 0 else { return }
    if let problem = PasswordHasher.problem(with: password) { throw ConfigurationError("RICHPUSH_ADMIN_PASSWORD: \(problem)") }
    do {
        _ = try await store.users.create(
            username: configuration.adminUsername, passwordHash: try await hasher.hash(password), role: .admin,
            audit: AuditEntry(actor: "bootstrap", action: .userCreated, target: configuration.adminUsername, details: "admin"))
        logger.notice("created the first admin", metadata: ["richpush.username": "\(configuration.adminUsername)"])
    } catch StoreError.duplicate {
        // Another process sharing the store, started at the same moment, created it first.
    }
}
