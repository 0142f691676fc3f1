// swift-tools-version: 6.2
import PackageDescription

// Micro-benchmarks of HalfTunes with ordo-one/benchmark (`swift package benchmark`), a package of
// its own so that the main build and the tests never compile it. (transfer-bench and
// urlsession-bench, which scripts/bench runs beside curl and aria2c, are targets of the main package.)
// Its "RuntimeInterposer" trait is left off: on Linux with Swift 6.3 it needs a package that has
// no mirror here (ordo-one/swift-runtime-interposer), and only the ARC counters need it.
let package = Package(
    name: "HalfTunesBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HalfTunes", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
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
