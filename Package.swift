// swift-tools-version:6.1
import PackageDescription

let strictConcurrency: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v15), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthRules", targets: ["HearthRules"]),
        .library(name: "HearthPasswords", targets: ["HearthPasswords"]),
        .library(name: "HearthStorageRules", targets: ["HearthStorageRules"]),
        .library(name: "HearthApp", targets: ["HearthApp"]),
        .library(name: "HearthDatabase", targets: ["HearthDatabase"]),
        .library(name: "HearthAuth", targets: ["HearthAuth"]),
        .library(name: "HearthStorage", targets: ["HearthStorage"]),
        .library(name: "HearthAdmin", targets: ["HearthAdmin"]),
        .library(name: "HearthMobileAds", targets: ["HearthMobileAds"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .library(name: "HearthTesting", targets: ["HearthTesting"]),
        .executable(name: "hearth", targets: ["hearth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.15.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "HearthCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthRules",
            dependencies: ["HearthCore"],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthStorageRules",
            dependencies: [
                "HearthCore",
                "HearthRules",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthApp",
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthConnection",
            dependencies: [
                "HearthCore",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthDatabase",
            dependencies: [
                "HearthCore",
                "HearthApp",
                "HearthConnection",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthAuth",
            dependencies: [
                "HearthApp",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthStorage",
            dependencies: [
                "HearthApp",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthMobileAds",
            dependencies: [
                "HearthApp",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthAdmin",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthPasswords",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthEdge",
            dependencies: [
                "HearthCore",
                "HearthSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthACME",
            dependencies: [
                "HearthEdge",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthSMTP",
            dependencies: [
                "HearthCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthSupport",
            dependencies: [
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthBackup",
            dependencies: [
                "HearthCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthPostgres",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthDatabaseServer",
            dependencies: [
                "HearthCore",
                "HearthPostgres",
                "HearthEdge",
                "HearthSupport",
                "HearthRules",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthAuthServer",
            dependencies: [
                "HearthCore",
                "HearthPostgres",
                "HearthEdge",
                "HearthSupport",
                "HearthSMTP",
                "HearthPasswords",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthAdsServer",
            dependencies: [
                "HearthCore",
                "HearthEdge",
                "HearthPostgres",
                "HearthSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthStorageServer",
            dependencies: [
                "HearthPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "HearthCore",
                "HearthEdge",
                "HearthSupport",
                "HearthStorageRules",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthUserFiles",
            dependencies: ["HearthCore"],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthConsole",
            dependencies: [
                "HearthCore",
                "HearthUserFiles",
                "HearthEdge",
                "HearthSupport",
                "HearthPasswords",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Assets"],
            swiftSettings: strictConcurrency,
            plugins: ["EmbedConsoleAssets"]
        ),
        .executableTarget(
            name: "hearth-embed-assets",
            path: "Plugins/hearth-embed-assets",
            swiftSettings: strictConcurrency
        ),
        .plugin(
            name: "EmbedConsoleAssets",
            capability: .buildTool(),
            dependencies: ["hearth-embed-assets"]
        ),
        .target(
            name: "HearthServer",
            dependencies: [
                "HearthACME",
                "HearthAdsServer",
                "HearthPostgres",
                "HearthBackup",
                "HearthCore",
                "HearthEdge",
                "HearthConsole",
                "HearthDatabaseServer",
                "HearthAuthServer",
                "HearthStorageServer",
                "HearthRules",
                "HearthStorageRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthTesting",
            dependencies: [
                "HearthServer", "HearthDatabaseServer", "HearthStorageServer", "HearthApp", "HearthAuth", "HearthStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictConcurrency
        ),
        .executableTarget(
            name: "hearth",
            dependencies: [
                "HearthACME",
                "HearthAdsServer",
                "HearthPostgres",
                "HearthBackup",
                "HearthCore",
                "HearthUserFiles",
                "HearthEdge",
                "HearthDatabaseServer",
                "HearthAuthServer",
                "HearthStorageServer",
                "HearthRules",
                "HearthStorageRules",
                "HearthServer",
                "HearthConsole",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .executableTarget(
            name: "todo-app",
            dependencies: ["HearthApp", "HearthAuth", "HearthDatabase"],
            path: "Examples/TodoApp",
            swiftSettings: strictConcurrency
        ),
        .executableTarget(
            name: "blog",
            dependencies: ["HearthApp", "HearthAuth", "HearthDatabase", "HearthStorage"],
            path: "Examples/Blog",
            swiftSettings: strictConcurrency
        ),
        .executableTarget(
            name: "ad-banner",
            dependencies: ["HearthApp", "HearthMobileAds"],
            path: "Examples/AdBanner",
            swiftSettings: strictConcurrency
        ),
        .executableTarget(
            name: "guest-account",
            dependencies: ["HearthApp", "HearthAuth", "HearthDatabase"],
            path: "Examples/GuestAccount",
            swiftSettings: strictConcurrency
        ),
        .executableTarget(
            name: "hearth-bench",
            dependencies: [
                "HearthCore",
                "HearthApp",
                "HearthDatabase",
                "HearthRules",
                "HearthServer", "HearthDatabaseServer", "HearthAuthServer", "HearthStorageServer",
                "HearthPasswords",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/hearth-bench",
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthCoreTests",
            dependencies: ["HearthCore"],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthRulesTests",
            dependencies: ["HearthRules"],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthAdsServerTests",
            dependencies: ["HearthAdsServer", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthStorageRulesTests",
            dependencies: ["HearthStorageRules"],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthAppTests",
            dependencies: ["HearthApp"],
            swiftSettings: strictConcurrency
        ),
        .target(
            name: "HearthTestSupport",
            dependencies: [
                "HearthTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/HearthTestSupport",
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthConnectionTests",
            dependencies: ["HearthConnection", "HearthCore", "HearthTestSupport"],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthDatabaseTests",
            dependencies: ["HearthDatabase", "HearthApp", "HearthCore", "HearthTestSupport"],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthAuthTests",
            dependencies: [
                "HearthAuth", "HearthApp", "HearthDatabase", "HearthTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthStorageTests",
            dependencies: [
                "HearthStorage", "HearthAuth", "HearthApp", "HearthTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthMobileAdsTests",
            dependencies: [
                "HearthMobileAds", "HearthApp", "HearthTestSupport", "ad-banner",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthAdminTests",
            dependencies: [
                "HearthAdmin", "HearthAuth", "HearthApp", "HearthTestSupport", "HearthServer", "HearthDatabaseServer", "HearthAuthServer",
                "HearthStorageServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthTestingTests",
            dependencies: [
                "HearthTesting", "HearthApp", "HearthAuth", "HearthDatabase", "HearthStorage", "todo-app",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthConsoleTests",
            dependencies: ["HearthConsole", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthPasswordsTests",
            dependencies: ["HearthPasswords"],
            swiftSettings: strictConcurrency
        ),
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "HearthACME",
                "HearthPostgres",
                "HearthBackup",
                "HearthCore",
                "HearthServer",
                "HearthDatabaseServer",
                "HearthAuthServer",
                "HearthStorageServer",
                "HearthEdge",
                "HearthSMTP",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictConcurrency
        ),
    ]
)
