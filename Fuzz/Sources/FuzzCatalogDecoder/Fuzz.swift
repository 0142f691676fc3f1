import Foundation

/// libFuzzer entry: any bytes as a Search response body. A typed error or tracks, never a crash;
/// tracks always have a positive id and only http(s) URLs; UTF-16 and UTF-32 bodies are refused.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(bytes: start, count: count)
    do {
        let tracks = try SearchResponse.decodeTracks(from: body)
        precondition(!SearchResponse.isUTF16Or32(body), "a UTF-16 or UTF-32 body was read")
        for track in tracks {
            precondition(track.id > 0)
            for url in [track.previewURL, track.artworkURL, track.storeURL] {
                if let scheme = url?.scheme?.lowercased() { precondition(scheme == "http" || scheme == "https") }
            }
        }
    } catch {
        precondition(!error.message.isEmpty)
    }
    return 0
}
