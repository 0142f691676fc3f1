import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes album ID`: an album's songs in disc and track order.
struct AlbumCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "album",
        abstract: "List an album's songs in disc and track order (download them all with download --album ID).")

    @Argument(help: "The album's id, or a track's (its album): as search shows them.", transform: NumberIn.albumID)
    var id: Int

    @Flag(name: .long, help: "Print the songs as JSON (the search schema, with the album as \"album\").")
    var json = false

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let found = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) {
                try await $0.album(id)
            }
            if json { return Terminal.write(try WireEncoding.line(found) + "\n") }
            if let album = found.album {
                Terminal.write(DisplayWidth.printable(album.heading(songs: found.results.count)) + "\n")
            }
            if !found.results.isEmpty {
                Terminal.write(TrackTable(maxWidth: TerminalWindow.columns).renderAlbum(found.results))
            }
        }
    }
}

/// `halftunes artist ID`: an artist's songs, newest first.
struct ArtistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "artist",
        abstract: "List an artist's songs, newest first.")

    @Argument(help: "The artist's id, or a track's (its artist): as search shows them.", transform: NumberIn.artistID)
    var id: Int

    @Option(name: .long, help: "How many songs, 1 to 200.", transform: NumberIn.parser(1...200))
    var limit: Int = 50

    @Flag(name: .long, help: "Print the songs as JSON (the search schema, with the artist as \"artist\").")
    var json = false

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let found = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) {
                try await $0.artist(id, limit: limit)
            }
            if json { return Terminal.write(try WireEncoding.line(found) + "\n") }
            if let artist = found.artist {
                Terminal.write(DisplayWidth.printable(artist.heading(songs: found.results.count)) + "\n")
            }
            if !found.results.isEmpty {
                Terminal.write(TrackTable(maxWidth: TerminalWindow.columns).renderArtist(found.results))
            }
        }
    }
}
