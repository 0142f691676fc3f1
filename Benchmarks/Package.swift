// swift-tools-version: 6.2
import PackageDescription

// Measurements of HalfTunes, a package of its own so that the main build and the tests never
// compile it:
// - transfer-bench and urlsession-bench, run by ../scripts/bench side by side with curl and aria2c;
// - micro-benchmarks with ordo-one/benchmark under Benchmarks/ (`swift package benchmark`).
//   Its "RuntimeInterposer" trait is left off: on Linux with Swift 6.3 it needs a package that
//   has no mirror here (ordo-one/swift-runtime-interposer), and only the ARC counters need it.
let package = Package(
    name: "HalfTunesBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HalfTunes", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(name: "urlsession-bench"),
        .executableTarget(
            name: "transfer-bench",
            dependencies: [
                .product(name: "Transfers", package: "HalfTunes"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "CatalogDecoding",
            dependencies: [
                .product(name: "ITunesSearch", package: "HalfTunes"),
                .product(name: "Transfers", package: "HalfTunes"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CatalogDecoding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
