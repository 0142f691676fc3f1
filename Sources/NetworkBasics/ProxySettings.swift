import Foundation

/// Which proxy a request goes through, as curl and most Linux tools decide it: `https_proxy` for
/// https URLs, `http_proxy` for http ones, `all_proxy` for either, each in lower or upper case
/// (upper-case `HTTP_PROXY` excepted, as curl excepts it: a CGI program's environment takes it
/// from a request's `Proxy:` header), none for the hosts `no_proxy` names; `--proxy URL` in place
/// of the environment's proxies. Pure.
public struct ProxySettings: Sendable, Hashable, Codable {
    /// A proxy server.
    public struct Server: Sendable, Hashable, Codable, CustomStringConvertible {
        /// How the proxy is spoken to.
        public enum Kind: String, Sendable, Hashable, Codable { case http, socks5 }
        public var kind: Kind
        public var host: String
        public var port: Int
        /// `user:password` for HTTP proxies that ask (Basic authentication), when the URL gave it.
        public var credentials: String?

        public var description: String { "\(kind == .http ? "http" : "socks5")://\(host):\(port)" }
    }

    /// The proxy for http URLs.
    public var http: Server?
    /// The proxy for https URLs.
    public var https: Server?
    /// Hosts reached directly: names (matching the name and every name under it), addresses, or `*`.
    public var bypass: [String]

    /// No proxy for anything.
    public static let none = ProxySettings(http: nil, https: nil, bypass: [])

    /// Settings with these proxies.
    public init(http: Server?, https: Server?, bypass: [String] = []) {
        (self.http, self.https, self.bypass) = (http, https, bypass.map { $0.lowercased() })
    }

    /// The settings of an explicit `--proxy` (empty: none at all), else of the environment.
    ///
    /// - Throws: `ProxySettingsError` naming the setting whose value is not a proxy URL.
    public static func resolve(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ProxySettingsError) -> ProxySettings {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names { if let value = environment[name], !value.isEmpty { return (name, value) } }
            return nil
        }
        let bypass = (value("no_proxy", "NO_PROXY")?.value ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let explicit {
            guard !explicit.isEmpty else { return .none }
            let server = try server(explicit, setting: "--proxy")
            return ProxySettings(http: server, https: server, bypass: bypass)
        }
        func parsed(_ found: (name: String, value: String)?) throws(ProxySettingsError) -> Server? {
            guard let found else { return nil }
            return try server(found.value, setting: found.name)
        }
        let all = try parsed(value("all_proxy", "ALL_PROXY"))
        let http = try parsed(value("http_proxy")) ?? all
        let https = try parsed(value("https_proxy", "HTTPS_PROXY")) ?? all
        return ProxySettings(http: http, https: https, bypass: bypass)
    }

    /// The proxy for `url`, or `nil` to connect directly.
    public func server(for url: URL) -> Server? {
        guard let host = url.host?.lowercased() else { return nil }
        let chosen = url.scheme?.lowercased() == "https" ? https : http
        guard let chosen, !bypasses(host) else { return nil }
        return chosen
    }

    /// Whether `host` is reached directly.
    public func bypasses(_ host: String) -> Bool {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bypass.contains { entry in
            if entry == "*" { return true }
            let bare = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            return name == bare || name.hasSuffix("." + bare)
        }
    }

    /// A proxy URL: `host:port`, `http://[user:password@]host[:port]`, `socks5://host[:port]`
    /// (`socks5h`, names resolved by the proxy, is taken as `socks5`). The port defaults to 1080, as curl's does.
    static func server(_ text: String, setting: String) throws(ProxySettingsError) -> Server {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URLComponents(string: withScheme), let host = url.host, !host.isEmpty else {
            throw ProxySettingsError(
                message: "\(setting): \"\(redacted(text))\" is not a proxy URL such as http://proxy.example:3128")
        }
        let kind: Server.Kind
        switch url.scheme?.lowercased() {
        case "http": kind = .http
        case "https":
            // Spoken to in clear, an https:// proxy would carry its password and every http request unencrypted.
            throw ProxySettingsError(
                message: "\(setting): https:// proxies (TLS to the proxy itself) are not supported; http:// and socks5:// are")
        case "socks5", "socks5h": kind = .socks5
        default:
            throw ProxySettingsError(
                message: "\(setting): \(url.scheme ?? "") proxies are not supported (http:// and socks5:// are)")
        }
        let credentials = url.user.map { user in user + ":" + (url.password ?? "") }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return Server(kind: kind, host: bare, port: url.port ?? 1080, credentials: credentials)
    }
}

extension ProxySettings {
    /// A proxy setting as it may be shown: any user name and password replaced by `…`.
    public static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        guard start <= at else { return text }
        return String(text[..<start]) + "…" + String(text[at...])
    }
}

/// A proxy setting that cannot be used.
public struct ProxySettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line for the user.
    public let message: String
    public var description: String { message }
}
