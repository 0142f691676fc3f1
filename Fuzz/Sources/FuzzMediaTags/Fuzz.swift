/// libFuzzer entry: any bytes as a music file to tag. The writer answers with a typed error or a
/// file that, tagged again, comes out the same (nothing duplicated, nothing lost).
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let tags = TrackTags(
        title: "Tïtle / \"x\" & y", artist: "Artist", album: "Album", genre: "Pop", date: "2020",
        trackNumber: TrackNumber(1, of: 2), cover: Artwork(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]))
    guard let (_, once) = try? MediaTagger.tag(bytes, with: tags) else { return 0 }
    do {
        let (_, twice) = try MediaTagger.tag(once, with: tags)
        precondition(twice == once, "tagging a tagged file again changed it")
    } catch {
        preconditionFailure("a file the writer made cannot be tagged again: \(error)")
    }
    return 0
}
