import Foundation

/// The page's files (HTML, JS modules, CSS, its icon), compiled into the program (SwiftPM's
/// `embedInCode`), so a copied or packaged binary serves them with nothing beside it. Served by
/// name from this fixed set, so no request can reach any other file.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        let data: Data
        let contentType: String
    }

    let files: [String: Asset]

    /// Every file of `Resources/Static`, by the name the page asks for.
    static let embedded: [String: [UInt8]] = [
        "index.html": PackageResources.index_html, "style.css": PackageResources.style_css,
        "icon.svg": PackageResources.icon_svg, "announce.js": PackageResources.announce_js,
        "api.js": PackageResources.api_js, "app.js": PackageResources.app_js,
        "controls.js": PackageResources.controls_js, "format.js": PackageResources.format_js,
        "library.js": PackageResources.library_js, "player.js": PackageResources.player_js,
        "ratelimit.js": PackageResources.ratelimit_js, "results.js": PackageResources.results_js,
        "shortcuts.js": PackageResources.shortcuts_js, "tracks.js": PackageResources.tracks_js,
        "views.js": PackageResources.views_js,
    ]

    static func load() throws -> StaticAssets {
        let types = [
            "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
            "svg": "image/svg+xml",
        ]
        var files: [String: Asset] = [:]
        for (name, bytes) in embedded {
            guard let type = types[(name as NSString).pathExtension] else { continue }
            files[name] = Asset(data: Data(bytes), contentType: type)
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
