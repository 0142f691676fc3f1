// swift-tools-version: 6.0
// A program that depends on the Transfers product alone, built as a package of its own against
// this repository (scripts/check-transfers-alone): its background session's downloads outlive it
// through `transfers-agent`, with no HalfTunes anywhere.
import PackageDescription

let package = Package(
    name: "TransfersAlone",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "HalfTunes", path: "../..")],
    targets: [
        .executableTarget(name: "songs-alone", dependencies: [.product(name: "Transfers", package: "HalfTunes")])
    ]
)
