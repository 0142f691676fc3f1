import Foundation

/// libFuzzer entry: any bytes as a Search or Lookup response body. A typed error or songs,
/// albums and artists, never a crash; each has a positive id and only http(s) URLs; UTF-16 and
/// UTF-32 bodies are refused.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(bytes: start, count: count)
    do {
        let answer = try SearchResponse.decodeAnswer(from: body)
        precondition(!SearchResponse.isUTF16Or32(body), "a UTF-16 or UTF-32 body was read")
        var urls: [URL?] = []
        for track in answer.tracks {
            precondition(track.id > 0)
            urls += [track.previewURL, track.artworkURL, track.storeURL]
        }
        for album in answer.albums {
            precondition(album.id > 0)
            urls += [album.artworkURL, album.storeURL]
        }
        for artist in answer.artists {
            precondition(artist.id > 0)
            urls.append(artist.storeURL)
        }
        for url in urls {
            if let scheme = url?.scheme?.lowercased() { precondition(scheme == "http" || scheme == "https") }
        }
    } catch {
        precondition(!error.message.isEmpty)
    }
    return 0
}
