import Foundation
import TestSupport
import Testing

@testable import ITunesSearch

/// The decoder fed broken and hostile bodies: a typed error or a sane result, never a crash.
@Suite("Bad input to the decoder")
struct BadInputTests {
    private func decodes(_ body: Data) -> Bool {
        do {
            let tracks = try SearchResponse.decodeTracks(from: body)
            return tracks.allSatisfy { $0.id > 0 && ($0.previewURL == nil || ["http", "https"].contains($0.previewURL?.scheme)) }
        } catch {
            return true  // a typed CatalogError, by the function's signature
        }
    }

    @Test(
        "every truncation of a real response",
        .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-response mutation tests skipped"))
    func truncations() throws {
        let body = try Fixtures.data("search-hellogoodbye-2.json")
        for length in stride(from: 0, to: body.count, by: 7) {
            #expect(decodes(body.prefix(length)))
        }
    }

    @Test(
        "random byte changes to a real response (seeded)",
        .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-response mutation tests skipped"))
    func mutations() throws {
        let original = [UInt8](try Fixtures.data("search-price-tag-us-50.json"))
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<300 {
            var body = original
            for _ in 0..<(1 + next() % 8) { body[next() % body.count] = UInt8(truncatingIfNeeded: next()) }
            #expect(decodes(Data(body)))
        }
    }

    /// A hostile body, named in the test's output by what it is (a 10 MB body printed whole made
    /// one line of 10 MB in the test log).
    struct HostileBody: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        var testDescription: String { body.utf8.count > 200 ? "\(name) (\(body.utf8.count) bytes)" : body }
    }

    @Test(
        "wrong types, nulls, huge strings, deep nesting, invalid UTF-8",
        arguments: [
            #"{"results":null}"#,
            #"{"results":[null,1,"x",[],{}]}"#,
            #"{"results":[{"trackId":1.5,"kind":"song"}]}"#,
            #"{"results":[{"trackId":-3,"kind":"song"}]}"#,
            #"{"results":[{"trackId":99999999999999999999999,"kind":"song"}]}"#,
            #"{"results":[{"trackId":1,"kind":"song","trackName":{"a":1},"previewUrl":["x"]}]}"#,
        ].map { HostileBody(name: "", body: $0) } + [
            HostileBody(name: "100,000 nested arrays", body: String(repeating: "[", count: 100_000)),
            HostileBody(
                name: "a 10 MiB title",
                body: #"{"results":[{"trackId":1,"kind":"song","trackName":""# + String(repeating: "a", count: 10 << 20)
                    + #""}]}"#),
        ])
    func hostile(body: HostileBody) {
        #expect(decodes(Data(body.body.utf8)))
    }

    @Test("invalid UTF-8 is an error, not a crash")
    func invalidUTF8() {
        var body = Data(#"{"results":[{"trackId":1,"kind":"song","trackName":""#.utf8)
        body.append(contentsOf: [0xFF, 0xFE, 0xC3])
        body.append(contentsOf: Array(#""}]}"#.utf8))
        #expect(decodes(body))
    }
}
