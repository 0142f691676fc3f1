import Foundation

/// libFuzzer entry: any bytes as a Search response body. A typed error or tracks, never a crash;
/// tracks always have a positive id and only http(s) preview URLs.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(bytes: start, count: count)
    if let tracks = try? SearchResponse.decodeTracks(from: body) {
        for track in tracks {
            precondition(track.id > 0)
            if let scheme = track.previewURL?.scheme?.lowercased() { precondition(scheme == "http" || scheme == "https") }
        }
    }
    return 0
}
