import Foundation

/// The page's files (HTML, JS, CSS), read once from the package's resources. Served by name
/// from this fixed set, so no request can reach any other file.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        let data: Data
        let contentType: String
    }

    let files: [String: Asset]

    static func load() throws -> StaticAssets {
        let types = [
            "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        ]
        var files: [String: Asset] = [:]
        for name in ["index.html", "app.js", "style.css"] {
            let parts = name.split(separator: ".")
            guard
                let url = Bundle.module.url(
                    forResource: String(parts[0]), withExtension: String(parts[1]), subdirectory: "Static")
            else { throw WebAppError("the web page's file \(name) is missing from the build") }
            files[name] = Asset(data: try Data(contentsOf: url), contentType: types[String(parts[1])]!)
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
