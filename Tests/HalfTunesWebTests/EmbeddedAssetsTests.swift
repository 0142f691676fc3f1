import Foundation
import Testing

@testable import HalfTunesWeb

/// The page's files are compiled into the program: a binary copied or packaged alone serves them.
@Suite struct EmbeddedAssetsTests {
    /// `Sources/HalfTunesWeb/Resources/Static`, read from the source tree.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/HalfTunesWeb/Resources/Static").standardizedFileURL

    @Test("every file of Resources/Static is embedded, byte for byte, and nothing else")
    func everyFileIsEmbedded() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(names.count >= 3, "no files found in \(Self.folder.path)")
        #expect(StaticAssets.embedded.keys.sorted() == names)
        let assets = try StaticAssets.load()
        for name in names {
            let onDisk = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            #expect(assets.files[name]?.data == onDisk, "\(name) differs from the source tree")
        }
    }
}
