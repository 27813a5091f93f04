// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

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
        .package(url: "https://github.com/vapor/sql-kit.git", exact: "3.36.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", exact: "4.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
    ],
    targets: [
        .target(name: "RichPushCore", swiftSettings: swiftSettings),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "RichPushImaging", dependencies: ["RichPushCore", "CPNG"], swiftSettings: swiftSettings),
        .target(
            name: "RichPushStore",
            dependencies: [
                "RichPushCore",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RichPushHubs",
            dependencies: ["RichPushCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RichPushServer",
            dependencies: [
                "RichPushCore", "RichPushImaging", "RichPushStore", "RichPushHubs",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "richpush",
            dependencies: [
                "RichPushServer", "RichPushCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
                "RichPushDaemon", "RichPushCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "RichPushDaemonTests", dependencies: ["RichPushDaemon"], swiftSettings: swiftSettings),
        .testTarget(name: "RichPushCoreTests", dependencies: ["RichPushCore"], swiftSettings: swiftSettings),
        .testTarget(name: "RichPushImagingTests", dependencies: ["RichPushImaging"], swiftSettings: swiftSettings),
        .testTarget(name: "RichPushStoreTests", dependencies: ["RichPushStore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RichPushServerTests",
            dependencies: [
                "RichPushServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
