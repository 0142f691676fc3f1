import Foundation

/// libFuzzer entry: any bytes as a Search response body. A typed error or tracks, never a crash;
/// tracks always have a positive id and only http(s) preview URLs; and the one-pass reader makes
/// of the bytes exactly what the `JSONDecoder` decoder it replaced makes of them (UTF-8 bodies;
/// it refuses the UTF-16 and UTF-32 bodies that decoder converted).
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(bytes: start, count: count)
    let outcome = DecodingOutcome.current(body)
    if case .tracks(let tracks) = outcome {
        for track in tracks {
            precondition(track.id > 0)
            if let scheme = track.previewURL?.scheme?.lowercased() { precondition(scheme == "http" || scheme == "https") }
        }
    }
    if FoundationDecoder.readsAsOtherEncoding(body) {
        // UTF-16 and UTF-32 bodies are refused (JSONDecoder converted them).
        precondition(
            outcome == .failure(.malformedResponse, CatalogError.malformedResponse(reason: "the body is not valid JSON").message))
        return 0
    }
    let oracle = FoundationDecoder.outcome(body)
    precondition(outcome == oracle, "the reader made \(outcome) of the body, JSONDecoder \(oracle)")
    return 0
}
