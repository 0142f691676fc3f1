import Foundation

/// The page's files (HTML, JS modules, CSS, its icon), read once from the package's resources. Served by
/// name from this fixed set, so no request can reach any other file.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        let data: Data
        let contentType: String
    }

    let files: [String: Asset]

    static func load() throws -> StaticAssets {
        let types = [
            "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
            "svg": "image/svg+xml",
        ]
        guard let folder = Bundle.module.url(forResource: "Static", withExtension: nil) else {
            throw WebAppError("the web page's files are missing from the build")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: Asset] = [:]
        for name in names {
            guard let type = types[(name as NSString).pathExtension] else { continue }
            files[name] = Asset(data: try Data(contentsOf: folder.appendingPathComponent(name)), contentType: type)
        }
        for name in ["index.html", "app.js", "style.css"] where files[name] == nil {
            throw WebAppError("the web page's file \(name) is missing from the build")
        }
        return StaticAssets(files: files)
    }
}

/// The web app cannot start.
public struct WebAppError: Error, CustomStringConvertible {
    /// Why.
    public let description: String
    init(_ description: String) { self.description = description }
}
