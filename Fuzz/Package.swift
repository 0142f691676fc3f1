// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for the parsers that read what servers send. The sources are the project's own
// files (symbolic links), compiled alone so the fuzzer instruments only them.
// Build: swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// Run:   scripts/fuzz
let package = Package(
    name: "HalfTunesFuzz",
    targets: [
        // The part of NetworkBasics the decoder uses (its URL policy), from the project's own files.
        .target(name: "NetworkBasics"),
        .executableTarget(name: "FuzzCatalogDecoder", dependencies: ["NetworkBasics"]),
        .executableTarget(name: "FuzzRanges"),
        // The tag writer (MediaTags), reading whatever a server sent as a music file.
        .executableTarget(name: "FuzzMediaTags"),
    ],
    swiftLanguageModes: [.v6]
)
