// swift-tools-version: 6.2
import PackageDescription

// Measurements of the transfer engine, run by ../scripts/bench side by side with curl and aria2c.
// A package of its own so that the main build and the tests never compile it.
let package = Package(
    name: "HalfTunesBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HalfTunes", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/google/swift-benchmark", from: "0.1.2"),
    ],
    targets: [
        .executableTarget(name: "urlsession-bench"),
        .executableTarget(
            name: "decode-bench",
            dependencies: [
                .product(name: "ITunesSearch", package: "HalfTunes"),
                .product(name: "Benchmark", package: "swift-benchmark"),
            ]
        ),
        .executableTarget(
            name: "transfer-bench",
            dependencies: [
                .product(name: "Transfers", package: "HalfTunes"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
