// swift-tools-version:6.2
import PackageDescription

/// `RICHPUSH_FUZZ=1` (`scripts/fuzz`): the project's own modules built for libFuzzer and AddressSanitizer, and the
/// fuzz driver `richpush-fuzz` beside them. Dependencies keep their flags, so their builds are reused.
let fuzzing = Context.environment["RICHPUSH_FUZZ"] == "1"

let swiftSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ] + (fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : [])

let package = Package(
    name: "richpush",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "richpush", targets: ["richpush"]),
        .executable(name: "richpushd", targets: ["richpushd"]),
        .library(name: "RichPushCore", targets: ["RichPushCore"]),
        .library(name: "RichPushServer", targets: ["RichPushServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", exact: "2.5.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", exact: "1.13.2"),
        .package(url: "https://github.com/vapor/sql-kit.git", exact: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", exact: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/vapor/multipart-kit.git", exact: "4.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", exact: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", exact: "1.7.3"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", exact: "2.1.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", exact: "1.5.0"),
    ],
    targets: [
        .target(name: "RichPushCore", swiftSettings: swiftSettings),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .target(name: "RichPushImaging", dependencies: ["CPNG", "CTurboJPEG", "CWebP"], swiftSettings: swiftSettings),
        .target(
            name: "RichPushStore",
            dependencies: [
                "RichPushCore",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RichPushHubs",
            dependencies: [
                "RichPushCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RichPushServer",
            dependencies: [
                "RichPushCore", "RichPushImaging", "RichPushStore", "RichPushHubs",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command line's HTTP client of a gateway's API: `send`, `status` and `export`, with their plans, progress and
        // terminal output.
        .target(
            name: "RichPushCLIClient",
            dependencies: [
                "RichPushCore", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // swift-argument-parser's side of the settings, for both command lines: a setting's flag and help.
        .target(
            name: "RichPushArguments",
            dependencies: ["RichPushCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "richpush",
            dependencies: [
                "RichPushServer", "RichPushHubs", "RichPushCore", "RichPushCLIClient", "RichPushArguments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CLinux"),
        .target(
            name: "RichPushDaemon",
            dependencies: ["RichPushCore", "RichPushImaging", "CCurl", "CDBus", "CLinux", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "richpushd",
            dependencies: [
                "RichPushDaemon", "RichPushCore", "RichPushArguments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            // GnuTLSLeftAlone.swift: GnuTLS' constructor must find the executable's answer in the dynamic symbols.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=_gnutls_global_init_skip"])]
        ),
        .testTarget(
            name: "RichPushDaemonTests", dependencies: ["RichPushDaemon", "RichPushCore", "RichPushImaging", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "RichPushCoreTests", dependencies: ["RichPushCore"], swiftSettings: swiftSettings),
        .testTarget(name: "RichPushImagingTests", dependencies: ["RichPushImaging"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RichPushStoreTests",
            dependencies: [
                "RichPushStore", "RichPushCore", "TestPostgres", "TestSupport", .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL server `scripts/with-postgres` starts for the tests, with a fresh database per test.
        .target(name: "TestPostgres", dependencies: ["TestSupport"], path: "Tests/TestPostgres", swiftSettings: swiftSettings),
        // What every test target shares: programs started without Foundation's Process (and its crash with many descriptors
        // open), waiting for a condition, a free port, a failure in a sentence.
        .target(
            name: "TestSupport", dependencies: [.product(name: "Logging", package: "swift-log")], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "RichPushCLIClientTests",
            dependencies: [
                "RichPushCLIClient", "RichPushCore", "TestSupport", "GatewayTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What each fuzz target feeds its input to; the test suite replays the corpus and past crashes through it.
        .target(
            name: "RichPushFuzzTargets",
            dependencies: [
                "RichPushCore", "RichPushImaging", "RichPushHubs", "RichPushServer", .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/Targets",
            swiftSettings: swiftSettings
        ),
        // The gateway in the test process, on a fresh store, and a test's conversation with it: for the server's tests
        // and the command line's.
        .target(
            name: "GatewayTesting",
            dependencies: [
                "RichPushServer", "RichPushCore", "TestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            path: "Tests/GatewayTesting",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RichPushServerTests",
            dependencies: [
                "RichPushServer", "RichPushCore", "RichPushHubs", "RichPushImaging", "RichPushStore", "RichPushCLIClient", "RichPushDaemon",
                "HubTestServers", "TestPostgres", "TestSupport", "GatewayTesting", "RichPushFuzzTargets",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // Loopback stand-ins for APNs, FCM and Notification Hubs that speak their wire protocols and check what
        // arrives the way the real services would.
        .target(
            name: "HubTestServers",
            dependencies: [
                "RichPushCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/HubTestServers",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RichPushHubsTests",
            dependencies: [
                "RichPushHubs", "RichPushCore", "HubTestServers", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

if fuzzing {
    package.products.append(.executable(name: "richpush-fuzz", targets: ["richpush-fuzz"]))
    package.targets.append(
        .executableTarget(
            name: "richpush-fuzz",
            dependencies: ["RichPushFuzzTargets"],
            path: "Fuzz/Entry",
            swiftSettings: swiftSettings,
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
        ))
}
