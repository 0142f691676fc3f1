import Foundation
import TestSupport
import Testing

@testable import ITunesSearch

/// The one-pass catalog reader against the `JSONDecoder` decoder it replaced (the oracle, in
/// FoundationDecoder.swift): on real answers, on JSON's corners and on thousands of broken
/// bodies, the two give the same tracks, field for field, or the same error.
@Suite("The catalog reader agrees with JSONDecoder")
struct DecoderAgreementTests {
    private static let fixtureNames = [
        "search-hellogoodbye-2.json", "search-price-tag-us-50.json", "search-empty.json", "error-400-invalid-entity.json",
    ]
    /// What the reader makes of a body that is not JSON.
    private static let notJSON = DecodingOutcome.failure(
        .malformedResponse, "the catalog sent a malformed response: the body is not valid JSON")

    @Test(
        "on the real answers, whole and cut short anywhere",
        .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-response agreement skipped"))
    func realAnswers() throws {
        for name in Self.fixtureNames {
            let body = try Fixtures.data(name)
            let whole = DecodingOutcome.current(body)
            #expect(whole == FoundationDecoder.outcome(body), "\(name)")
            if name == "search-price-tag-us-50.json" {
                guard case .tracks(let tracks) = whole else {
                    Issue.record("\(name): \(whole)")
                    continue
                }
                #expect(tracks.count == 50)
            }
            for length in stride(from: 0, to: body.count, by: 13) {
                let cut = body.prefix(length)
                #expect(DecodingOutcome.current(cut) == FoundationDecoder.outcome(cut), "\(name) cut at \(length)")
            }
        }
    }

    @Test(
        "on JSON's corners: numbers, escapes, duplicates, commas, nesting, byte-order marks",
        arguments: [
            // Numbers, as an id (read) and as a field nobody reads (skipped).
            "30000.0", "3e4", "1E+2", "100e-2", "-0", "-0.0", "1.5", "01", "-01", "00", "1.", "-", "--1", "1-2",
            "1.2.3", "1e", "1ee2", "0.e1", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
            "1e400", "12345678901234567890e-10", "+1", ".5", "0x10", "-a", "NaN", "true", "null", "\"7\"", "[7]",
            // Past 2^53, where a Double no longer tells integers apart (the first found by the fuzz target).
            "14444444444404444.44444", "123456789012345678.9", "-9007199254740993.5", "9007199254740993.0",
            "14444444444404444.0000000000000000000000", "9223372036854775807.0", "1.8e19", "-9.2e18",
        ].flatMap { number in
            [
                #"{"results":[{"kind":"song","trackId":\#(number),"trackName":"N"}]}"#,
                #"{"results":[{"kind":"song","trackId":3,"trackCount":\#(number),"x":\#(number)}]}"#,
            ]
        } + [
            // Strings and their escapes, read and skipped.
            #"{"results":[{"trackId":1,"trackName":"\u00e9\n\/\"\\\b\f\r\t"}]}"#,
            #"{"results":[{"trackId":1,"trackName":"\ud83d\ude00","x":"\ud800"}]}"#,
            #"{"results":[{"trackId":1,"trackName":"\ud800","artistName":"\udc00"}]}"#,
            #"{"results":[{"trackId":1,"trackName":"\ud800\u0041"}]}"#,
            #"{"results":[{"trackId":1,"trackName":"\x","x":"\q"}]}"#,
            #"{"results":[{"trackId":1,"x":"\u12"}]}"#,
            #"{"results":[{"trackId":1,"trackName":"\u0000"}]}"#,
            "{\"results\":[{\"trackId\":1,\"trackName\":\"a\u{01}b\",\"x\":\"c\u{02}\"}]}",
            "{\"results\":[{\"trackId\":1,\"trackName\":\"é ✓ 😀\"}]}",
            #"{"results":[{"trackId":1,"trackName":""}]}"#,
            // Keys: escaped, unreadable, repeated (the first counts).
            #"{"resu\u006cts":[{"track\u0049d":3}]}"#,
            #"{"results":[{"trackId":3,"a\x":1}]}"#,
            #"{"results":[{"trackId":3,"\udc00":1}]}"#,
            #"{"a\x":1,"results":[]}"#,
            // A key's `\u` without four hex digits swallows the quote after it (found by the fuzz target).
            #"{"resut":0,"results":[{"wrappernd":"so$g","traeeeE\uee"trackName":"T","previewUrl":"kands:/p.m4a"}]}"#,
            #"{"results":[{"trackId":1,"a\uee"trackName":"T"}]}"#,
            #"{"results":[{"trackId":1,"a\u12":"T"}]}"#,
            #"{"results":[{"trackId":1,"x":"a\uee"y":"T"}]}"#,
            #"{"results":[{"trackId":1,"trackId":2,"trackName":"a","trackName":"b"}]}"#,
            #"{"results":[{"trackId":1,"trackName":"a","trackName":7}]}"#,
            #"{"results":[{"trackId":1,"trackName":7,"trackName":"b"}]}"#,
            #"{"results":[],"results":{"a":1}}"#,
            #"{"results":{"a":1},"results":[]}"#,
            // Commas, white space, literals, what follows the body.
            #"{"results":[{"trackId":1},]}"#, #"{"results":[{"trackId":1,}],}"#, #"{"results":[,]}"#,
            #"{"results":[{},,{}]}"#, #"{,"results":[]}"#, #"{"results":[]},"#, #"{"results":[{,}]}"#,
            "{\"results\"\n:\r[\t]}", "{\"results\":[]}\u{0C}", "\u{0C}{\"results\":[]}", "{\"results\":[]}\u{0}",
            #"{"results":[{"a" 1}]}"#, #"{"results":[{1:2}]}"#, #"{"results":[{"a":}]}"#, #"{'results':[]}"#,
            #"{"results":[{"a":tru}]}"#, #"{"results":[{"a":truex}]}"#, #"{"results":[{"a":true x}]}"#,
            #"{"results":[{"a":[true,false,null,{"b":[1,{}]}]}]}"#, #"{"results":[]} x"#, #"{"results":[] "#,
            "\u{FEFF}{\"results\":[{\"trackId\":4}]}", "{\"results\":[]}\u{FEFF}",
            // Shapes: not an object, no results, results of the wrong type, the API's error body.
            "1", "\"x\"", "null", "[1,2,3]", "", "  ", "{}", #"{"results":null}"#, #"{"results":"x"}"#,
            #"{"results":[null,1,"x",[],{}]}"#, #"{"errorMessage":"m"}"#, #"{"errorMessage":"m","results":null}"#,
            #"{"errorMessage":3}"#, #"{"errorMessage":"\x"}"#, #"{"errorMessage":"a","errorMessage":"b"}"#,
            // Results that are not songs, or not whole.
            #"{"results":[{"wrapperType":"artist","trackId":1},{"wrapperType":"track","kind":"song","trackId":2}]}"#,
            #"{"results":[{"kind":"music-video","trackId":1},{"kind":7,"trackId":2},{"wrapperType":null,"trackId":3}]}"#,
            #"{"results":[{"trackId":5,"previewUrl":"file:///etc/passwd","artworkUrl100":"","artworkUrl60":"https://e.com/a.jpg"}]}"#,
            #"{"results":[{"trackId":5,"releaseDate":"2006-08-07T12:00:00Z","trackExplicitness":"cleaned","trackNumber":0}]}"#,
        ])
    func corners(body: String) {
        let data = Data(body.utf8)
        #expect(DecodingOutcome.current(data) == FoundationDecoder.outcome(data))
    }

    @Test("a body in UTF-16 or UTF-32 is refused as not JSON (JSONDecoder converted it)")
    func otherEncodings() throws {
        let text = #"{"results":[{"kind":"song","trackId":7}]}"#
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32] {
            let body = try #require(text.data(using: encoding))
            #expect(FoundationDecoder.readsAsOtherEncoding(body), "\(encoding)")
            #expect(
                DecodingOutcome.current(body)
                    == Self.notJSON,
                "\(encoding)")
        }
    }

    @Test("on nesting at and past the 512 levels JSONDecoder allows", arguments: [508, 509, 510, 511])
    func nesting(depth: Int) {
        for (open, close) in [("[", "]"), (#"{"a":"#, "}")] {
            let body =
                #"{"results":[{"trackId":1,"x":"# + String(repeating: open, count: depth) + "1"
                + String(repeating: close, count: depth) + "}]}"
            let data = Data(body.utf8)
            #expect(DecodingOutcome.current(data) == FoundationDecoder.outcome(data), "\(open) × \(depth)")
        }
    }

    @Test("a body cut off where JSONDecoder traps (the 513th nested array opened by the last byte) is not JSON")
    func cutAtTheDepthLimit() {
        // Found by the fuzzer: JSONDecoder itself ends the process on these bodies; the reader
        // refuses them as it refuses any body cut off inside an array.
        for body in [String(repeating: "[", count: 513), #"{"results":"# + String(repeating: "[", count: 513)] {
            #expect(
                DecodingOutcome.current(Data(body.utf8))
                    == Self.notJSON,
                "\(body.prefix(16))…")
            #expect(DecodingOutcome.current(Data(body.utf8)) == FoundationDecoder.outcome(Data(body.utf8)))
        }
    }

    @Test(
        "on 3,000 real answers with bytes changed, added and taken away (seeded)",
        .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-response agreement skipped"))
    func mutations() throws {
        let originals = try ["search-hellogoodbye-2.json", "search-price-tag-us-50.json"].map { [UInt8](try Fixtures.data($0)) }
        let significant = Array(#"{}[],:"\ -0123456789.eE+tfnulx"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]
        var state: UInt64 = 14
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var disagreements = 0
        var outcomes: Set<String> = []
        for round in 0..<3_000 {
            var body = originals[round % 2]
            for _ in 0..<(1 + next() % 4) {
                let at = next() % body.count
                let byte = next() % 3 == 0 ? UInt8(truncatingIfNeeded: next()) : significant[next() % significant.count]
                switch next() % 3 {
                case 0: body[at] = byte
                case 1: body.insert(byte, at: at)
                default: body.remove(at: at)
                }
            }
            let data = Data(body)
            if FoundationDecoder.readsAsOtherEncoding(data) { continue }
            let current = DecodingOutcome.current(data)
            let oracle = FoundationDecoder.outcome(data)
            outcomes.insert(current.description.prefix(40).description)
            if current != oracle {
                disagreements += 1
                if disagreements <= 5 {
                    let original = originals[round % 2]
                    let start =
                        zip(body, original).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(body.count, original.count)
                    let around = body[max(0, start - 30)..<min(body.count, start + 30)]
                    Issue.record(
                        "round \(round): \(current) against \(oracle), at \(start): \(Array(around)) \(String(decoding: around, as: UTF8.self).debugDescription)"
                    )
                }
            }
        }
        #expect(disagreements == 0)
        // The changes reach both sides: bodies refused, and bodies read with fewer tracks.
        #expect(outcomes.contains { $0.hasPrefix("malformedResponse") } && outcomes.count > 10)
    }
}
