// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "HalfTunes",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ITunesSearch", targets: ["ITunesSearch"]),
        .library(name: "Transfers", targets: ["Transfers"]),
        .library(name: "TransferEngine", targets: ["TransferEngine"]),
        .library(name: "HalfTunesKit", targets: ["HalfTunesKit"]),
        .library(name: "HalfTunesWeb", targets: ["HalfTunesWeb"]),
        .library(name: "DemoCatalog", targets: ["DemoCatalog"]),
        .library(name: "MediaTags", targets: ["MediaTags"]),
        .executable(name: "halftunes", targets: ["halftunes"]),
        .executable(name: "transfers-agent", targets: ["transfers-agent"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // One of each network utility the libraries share: host classifier, URL policy, name
        // resolution, proxies, Retry-After, the clock, trust roots and TLS failures in words.
        .target(
            name: "NetworkBasics",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // The process and file-system helpers the agents need: a detached child, a Unix socket
        // peer's credentials, systemd's socket activation, what is wrong with a folder.
        .target(name: "SystemBasics"),
        // The one `Range:` parser of the servers (the DemoCatalog's previews, the library's files).
        .target(name: "HTTPRanges"),
        // Tags and cover art into MP4/M4A and WAV files, in pure Swift (Foundation only).
        .target(name: "MediaTags"),
        .target(
            name: "ITunesSearch",
            dependencies: [
                "NetworkBasics",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The engine: TransferSession, its journal and the Range/If-Range logic (Foundation, no
        // FoundationNetworking, so the command line does not load libcurl's chain).
        .target(
            name: "TransferEngine",
            dependencies: [
                "NetworkBasics", "SystemBasics",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The URLSession-shaped layer over the engine, which it re-exports: `import Transfers` gives both.
        .target(
            name: "Transfers",
            dependencies: [
                "TransferEngine", "NetworkBasics", "SystemBasics", .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The per-user agent of Transfers' background sessions: knows nothing of songs.
        .target(
            name: "TransfersAgent",
            dependencies: [
                "TransferEngine", "SystemBasics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "transfers-agent",
            dependencies: [
                "TransfersAgent", "SystemBasics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HalfTunesKit",
            dependencies: [
                "ITunesSearch", "TransferEngine", "NetworkBasics", "SystemBasics", "MediaTags",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What only the command line shows and runs: the terminal's progress display and tables,
        // the foreground batch that follows downloads, and the audio player's process.
        .target(
            name: "HalfTunesTerminal",
            dependencies: [
                "HalfTunesKit", "ITunesSearch", "TransferEngine", "NetworkBasics",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The client of a home's agent: RemoteDownloadControl over its socket, the page held open
        // for `serve` (PageLink), and the agent's launch (AgentLauncher, through systemd or not).
        .target(
            name: "HalfTunesClient",
            dependencies: [
                "HalfTunesKit", "NetworkBasics", "SystemBasics",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HalfTunesWeb",
            dependencies: [
                "HalfTunesKit", "ITunesSearch", "NetworkBasics", "SystemBasics", "TransferEngine", "HTTPRanges",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.embedInCode("Resources/Static")]
        ),
        // The home's agent: the process that owns the downloads. Its Unix socket (this user's
        // processes only), idle exit, background sessions' claims, and the pages it serves for
        // `serve` and `demo` (HalfTunesWeb's app over its own downloads).
        .target(
            name: "HalfTunesAgent",
            dependencies: [
                "HalfTunesWeb", "HalfTunesKit", "ITunesSearch", "NetworkBasics", "SystemBasics", "TransferEngine",
                "TransfersAgent",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "DemoCatalog",
            dependencies: [
                "HTTPRanges",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "halftunes",
            dependencies: [
                "HalfTunesAgent", "HalfTunesWeb", "HalfTunesClient", "HalfTunesKit", "HalfTunesTerminal", "ITunesSearch",
                "DemoCatalog", "TransferEngine", "SystemBasics",
                "NetworkBasics", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The programs scripts/bench times against curl, aria2c and URLSession (release builds in full
        // runs; the smoke run in the test command uses the debug build the tests already made).
        .target(name: "BenchSupport", path: "Benchmarks/Sources/BenchSupport"),
        .executableTarget(
            name: "transfer-bench",
            dependencies: ["Transfers", "BenchSupport", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/Sources/transfer-bench"
        ),
        .executableTarget(name: "urlsession-bench", dependencies: ["BenchSupport"], path: "Benchmarks/Sources/urlsession-bench"),
        // A data task of the catalog's search answer: Foundation's URLSession against ResumableURLSession.
        .executableTarget(name: "data-bench", dependencies: ["Transfers"], path: "Benchmarks/Sources/data-bench"),
        // Issue 10's measures: the time to tag a preview, and what tags and artwork cost a batch of downloads.
        .executableTarget(
            name: "tag-bench",
            dependencies: ["HalfTunesKit", "MediaTags", "ITunesSearch", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/Sources/tag-bench"),
        // The example of issue 11: Apple's tutorial download service, ported by renaming four types.
        .target(
            name: "DownloadService", dependencies: ["Transfers"], path: "Examples/DownloadService/Sources/DownloadService"),
        .executableTarget(
            name: "download-service",
            dependencies: ["DownloadService", "Transfers", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/DownloadService/Sources/download-service"),
        .target(
            name: "TestSupport",
            dependencies: [
                "DemoCatalog", "NetworkBasics", "SystemBasics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ITunesSearchTests",
            dependencies: [
                "ITunesSearch", "TestSupport", "DemoCatalog",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TransfersTests",
            dependencies: [
                "Transfers", "TransferEngine", "TestSupport", "DemoCatalog", "SystemBasics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HalfTunesKitTests",
            dependencies: [
                "HalfTunesKit", "HalfTunesTerminal", "ITunesSearch", "TransferEngine", "DemoCatalog", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "NetworkBasicsTests",
            dependencies: [
                "NetworkBasics", "SystemBasics", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
        .testTarget(name: "MediaTagsTests", dependencies: ["MediaTags", "TestSupport", "DemoCatalog"]),
        .testTarget(
            name: "HalfTunesWebTests",
            dependencies: [
                "HalfTunesWeb", "HalfTunesClient", "HalfTunesKit", "ITunesSearch", "TestSupport", "DemoCatalog", "HTTPRanges",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DemoCatalogTests",
            dependencies: [
                "DemoCatalog", "HTTPRanges", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DownloadServiceExampleTests",
            dependencies: ["DownloadService", "Transfers", "SystemBasics", "TestSupport", "DemoCatalog"],
            path: "Examples/DownloadService/Tests/DownloadServiceExampleTests"),
        .testTarget(
            name: "halftunesTests",
            dependencies: [
                "halftunes", "HalfTunesWeb", "HalfTunesKit", "HalfTunesTerminal", "DemoCatalog", "TestSupport", "SystemBasics",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Warnings are errors in HalfTunes' own code (dependencies keep their own settings).
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
