import Foundation

/// The real iTunes responses in `../shared/fixtures/itunes/` (beside the repository, not in it).
public enum Fixtures {
    /// The fixtures folder.
    public static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .deletingLastPathComponent()  // beside it
        .appendingPathComponent("shared/fixtures/itunes")

    /// Whether the fixtures are there (tests that need them are skipped, saying why, when not).
    public static var available: Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("search-price-tag-us-50.json").path)
    }

    /// The bytes of one fixture.
    public static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }
}
