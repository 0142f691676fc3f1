import Benchmark
import Foundation
import ITunesSearch
import Transfers

// Micro-benchmarks of what HalfTunes parses from servers: the real 50-result search response for
// "price tag" (../shared/fixtures/itunes, read in place, never copied) and the headers of a
// resumed download. HALFTUNES_BENCH_QUICK=1 keeps each to a few dozen iterations (the smoke run).
let fixture = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/fixtures/itunes/search-price-tag-us-50.json")

let benchmarks: @Sendable () -> Void = {
    let quick = ProcessInfo.processInfo.environment["HALFTUNES_BENCH_QUICK"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput, .peakMemoryResident],
        maxDuration: quick ? .milliseconds(200) : .seconds(3),
        maxIterations: quick ? 30 : 10_000)

    if let body = try? Data(contentsOf: fixture) {
        Benchmark("Decode the real 50-result search response") { benchmark in
            for _ in benchmark.scaledIterations {
                let tracks = try SearchResponse.decodeTracks(from: body)
                precondition(tracks.count == 50)
                blackHole(tracks)
            }
        }
    } else {
        FileHandle.standardError.write(Data("CatalogDecoding: \(fixture.path) is missing; the decoding benchmark is skipped\n".utf8))
    }

    Benchmark("Decide a resumed response (Content-Range, If-Range)") { benchmark in
        let validator = Validator(etag: "\"5f3a-1a2b3c\"")
        let head = ResponseDecision.Head(
            status: 206, contentRange: "bytes 524288-1323043/1323044", contentLength: 798_756, etag: "\"5f3a-1a2b3c\"")
        for _ in benchmark.scaledIterations {
            let decision = ResponseDecision.decide(head, requestedOffset: 524_288, bytesOnDisk: 524_288, validator: validator)
            precondition(decision == .write(offset: 524_288, expectedTotal: 1_323_044))
            blackHole(decision)
        }
    }
}
