import Benchmark
import Foundation
import ITunesSearch

// Decoding the real 50-result response for "price tag" (../shared/fixtures/itunes), the body a
// search returns. Micro-benchmark with google/swift-benchmark (package-benchmark cannot be
// resolved on this machine: its Linux manifest needs ordo-one/swift-runtime-interposer, which has
// no mirror here).
let fixture = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/fixtures/itunes/search-price-tag-us-50.json")

guard let body = try? Data(contentsOf: fixture) else {
    FileHandle.standardError.write(Data("decode-bench: \(fixture.path) is missing; nothing to measure\n".utf8))
    exit(0)
}

benchmark("decode the real 50-result search response") {
    let tracks = try SearchResponse.decodeTracks(from: body)
    precondition(tracks.count == 50)
}

Benchmark.main()
