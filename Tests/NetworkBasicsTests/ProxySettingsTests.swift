import Foundation
import NetworkBasics
import Testing

/// Which proxy a URL goes through, from the environment and `--proxy`, as curl decides (pure).
@Suite("Proxy settings (pure)")
struct ProxySettingsTests {
    private let page = URL(string: "https://itunes.apple.com/search")!
    private let plain = URL(string: "http://audio.example/p.m4a")!

    @Test("https_proxy for https, http_proxy for http, all_proxy for both, either case but upper-case HTTP_PROXY")
    func environment() throws {
        let both = try ProxySettings.resolve(explicit: nil, environment: ["all_proxy": "proxy.example:3128"])
        #expect(both.server(for: page)?.description == "http://proxy.example:3128")
        #expect(both.server(for: plain)?.description == "http://proxy.example:3128")
        let split = try ProxySettings.resolve(
            explicit: nil, environment: ["HTTPS_PROXY": "http://secure.example:8443", "http_proxy": "socks5://plain.example"])
        #expect(split.server(for: page)?.description == "http://secure.example:8443")
        #expect(split.server(for: plain)?.description == "socks5://plain.example:1080")
        let upper = try ProxySettings.resolve(explicit: nil, environment: ["HTTP_PROXY": "http://cgi.example:80"])
        #expect(upper.server(for: plain) == nil, "HTTP_PROXY can come from a request header in CGI programs")
        #expect(try ProxySettings.resolve(explicit: nil, environment: [:]) == .none)
    }

    @Test("no_proxy names hosts and the names under them, or * for all; addresses as written")
    func bypass() throws {
        let settings = try ProxySettings.resolve(
            explicit: nil, environment: ["https_proxy": "p.example:1", "NO_PROXY": "apple.com, .internal,10.0.0.7"])
        #expect(settings.server(for: page) == nil)
        #expect(settings.server(for: URL(string: "https://cdn.internal/x")!) == nil)
        #expect(settings.server(for: URL(string: "https://10.0.0.7/x")!) == nil)
        #expect(settings.server(for: URL(string: "https://notapple.com/x")!) != nil)
        #expect(settings.server(for: URL(string: "https://10.0.0.70/x")!) != nil)
        let all = try ProxySettings.resolve(explicit: nil, environment: ["https_proxy": "p.example:1", "no_proxy": "*"])
        #expect(all.server(for: page) == nil)
    }

    @Test("--proxy replaces the environment's proxies (\"\" for none); no_proxy still applies; credentials kept")
    func explicit() throws {
        let environment = ["https_proxy": "env.example:1", "no_proxy": "audio.example"]
        let given = try ProxySettings.resolve(explicit: "http://user:secret@given.example:3128", environment: environment)
        #expect(given.server(for: page)?.description == "http://given.example:3128")
        #expect(given.server(for: page)?.credentials == "user:secret")
        #expect(given.server(for: plain) == nil)
        #expect(try ProxySettings.resolve(explicit: "", environment: environment) == .none)
    }

    @Test(
        "a value that is not a proxy URL names the setting",
        arguments: [("ftp://p.example", "ftp proxies"), ("http://", "is not a proxy URL")])
    func bad(value: String, says: String) {
        #expect {
            try ProxySettings.resolve(explicit: nil, environment: ["all_proxy": value])
        } throws: { error in
            let message = (error as? ProxySettingsError)?.message ?? ""
            return message.hasPrefix("all_proxy: ") && message.contains(says)
        }
    }
}
