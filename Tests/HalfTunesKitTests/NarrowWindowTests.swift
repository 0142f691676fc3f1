import Foundation
import HalfTunesKit
import HalfTunesTerminal
import ITunesSearch
import Testing

/// An 80-column window: the lines a finished download leaves and the library's heading give way
/// in the folder, never in the file's name (pure).
@Suite("Lines at 80 columns (pure)")
struct NarrowWindowTests {
    private let folder = "/home/someone/a-rather-long-folder-name/for-the-home-of-halftunes/h/library"
    private let name = "Disco Llama 🦙 - Love Potion 💖 [1023].wav"

    @Test("a path gives way from the left, folder by folder; the name stays whole")
    func fittingPath() {
        let path = folder + "/" + name
        #expect(DisplayWidth.fittingPath(path, in: 200) == path)
        #expect(DisplayWidth.fittingPath(path, in: 60) == "…/h/library/" + name)
        #expect(DisplayWidth.fittingPath(path, in: 53) == "…/library/" + name)
        #expect(DisplayWidth.fittingPath(path, in: 50) == "…/" + name)
        #expect(DisplayWidth.fittingPath(path, in: 10) == "…/" + name)
        for width in [60, 50, 45] { #expect(DisplayWidth.of(DisplayWidth.fittingPath(path, in: width)) <= width) }
    }

    @Test("the done line of a finished download keeps the file's name whole at 80 columns")
    func doneLine() throws {
        var writes: [String] = []
        let display = ProgressDisplay(
            mode: .terminal, columns: { 80 }, rows: { 24 }, write: { writes.append($0) }, warn: { _ in })
        display.add(
            DownloadDocument(
                DownloadStatus(
                    track: Track(id: 1023, name: "Love Potion 💖", artist: "Disco Llama 🦙"), state: .downloading,
                    receivedBytes: 10, expectedBytes: 100, failure: nil, file: nil)))
        display.show(.completed(trackID: 1023, file: URL(filePath: folder + "/" + name), warning: nil))
        let text = writes.joined().replacingOccurrences(of: "\u{1B}\\[[0-9]*[A-Za-z]", with: "", options: .regularExpression)
        let line = try #require(text.split(separator: "\n").first { $0.contains("done →") })
        #expect(line == "Love Potion 💖 — done → …/h/library/" + name)
        #expect(DisplayWidth.of(String(line)) < 80)
    }

    @Test("list's library heading fits the window, the folder shortened; piped, it is whole")
    func libraryHeading() throws {
        var document = DownloadDocument(Track(id: 1023, name: "Love Potion 💖", artist: "Disco Llama 🦙"), status: nil)
        (document.state, document.file, document.receivedBytes) = (.downloaded, folder + "/" + name, 1_300_000)
        let listing = Listing(downloads: [], library: [document], libraryCount: 1, libraryBytes: 1_300_000)
        let narrow = ListingText.render(listing, libraryFolder: URL(filePath: folder), maxWidth: 80)
        let heading = try #require(narrow.split(separator: "\n").first)
        #expect(heading == "Library (…/for-the-home-of-halftunes/h/library): 1 track, 1.3 MB")
        #expect(narrow.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 80 }, "\(narrow)")
        let piped = ListingText.render(listing, libraryFolder: URL(filePath: folder), maxWidth: nil)
        #expect(piped.hasPrefix("Library (\(folder)): 1 track, 1.3 MB\n"))
    }
}
