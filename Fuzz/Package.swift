// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for what servers and catalogs send. The library targets are the project's own
// files (symbolic links), compiled alone so the fuzzer instruments only them.
// Run: scripts/fuzz (it builds with -sanitize=fuzzer,address)
let package = Package(
    name: "HalfTunesFuzz",
    targets: [
        // The part of NetworkBasics the decoder and the URL policy use, from the project's own files.
        .target(name: "NetworkBasics"),
        // MediaTags whole: the tag writer and MediaDuration.
        .target(name: "MediaTags"),
        // What the media fuzzers share: the recipe structure-aware targets read, the checks.
        .target(name: "FuzzSupport", dependencies: ["MediaTags"]),
        .executableTarget(name: "FuzzCatalogDecoder", dependencies: ["NetworkBasics"]),
        .executableTarget(name: "FuzzRanges"),
        .executableTarget(name: "FuzzURLPolicy", dependencies: ["FuzzSupport", "NetworkBasics"]),
        // Raw bytes as a music file.
        .executableTarget(name: "FuzzMediaTags", dependencies: ["FuzzSupport"]),
        // Structure-aware: box trees and chunk lists built from the fuzzer's choices.
        .executableTarget(name: "FuzzMP4", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzWAV", dependencies: ["FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
