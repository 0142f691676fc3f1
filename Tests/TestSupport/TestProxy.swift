import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A small proxy on 127.0.0.1 for tests. HTTP: `CONNECT host:port` tunnels (how clients reach
/// HTTPS, and AsyncHTTPClient any URL, through a proxy) and absolute-form requests
/// (`GET http://host/path`), each noted in ``log`` as the request line's method and target.
/// SOCKS5 on the same port (RFC 1928, no authentication, `CONNECT` to an IPv4 address, a name or
/// an IPv6 address), noted as `SOCKS5 host:port`. Blocking sockets on threads of its own; stops
/// (and drops its tunnels) with ``stop()``.
public final class TestProxy: Sendable {
    /// `CONNECT localhost:4443`, `GET http://127.0.0.1:8081/search?term=x`, … in the order they came.
    public let log = RequestLog<String>()
    /// Its port.
    public let port: Int
    private let listener: Int32
    private let open = Mutex<Set<Int32>>([])
    /// Names it resolves itself, as a proxy with its own DNS would (`previews.example` → `127.0.0.1`).
    private let hosts: [String: String]

    /// Listens on a free port; `hosts` are names it connects to the given addresses.
    public init(hosts: [String: String] = [:]) throws {
        self.hosts = hosts
        (listener, port) = try LoopbackListener.open(backlog: 64)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The proxy's URL.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The proxy's URL as a SOCKS5 proxy.
    public var socksURL: String { "socks5://127.0.0.1:\(port)" }

    /// Stops listening and closes every connection.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            track(client)
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func track(_ fd: Int32) { _ = open.withLock { $0.insert(fd) } }

    private func finish(_ fds: Int32...) {
        for fd in fds {
            open.withLock { _ = $0.remove(fd) }
            close(fd)
        }
    }

    private func serve(_ client: Int32) {
        var first: UInt8 = 0
        guard recv(client, &first, 1, Int32(MSG_PEEK)) == 1 else { return finish(client) }
        if first == 5 { return serveSOCKS5(client) }
        guard let (head, rest) = readHead(client), let line = head.split(separator: "\r\n").first else {
            return finish(client)
        }
        let parts = line.split(separator: " ")
        guard parts.count == 3 else { return finish(client) }
        let (method, target) = (String(parts[0]), String(parts[1]))
        log.append("\(method) \(target)")
        if method == "CONNECT" {
            let hostPort = target.split(separator: ":")
            guard hostPort.count == 2, let port = Int(hostPort[1]), let server = connectTo(String(hostPort[0]), port) else {
                send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return finish(client)
            }
            track(server)
            send(client, "HTTP/1.1 200 Connection Established\r\n\r\n")
            if !rest.isEmpty { sendBytes(server, rest) }
            pump(client, server)
        } else if let url = URL(string: target), let host = url.host, let server = connectTo(host, url.port ?? 80) {
            track(server)
            // The request again in origin form, on a connection that closes after it.
            let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
            var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            lines[0] = "\(method) \(path) HTTP/1.1"
            lines.removeAll { $0.lowercased().hasPrefix("proxy-connection:") || $0.lowercased().hasPrefix("connection:") }
            lines.insert("Connection: close", at: 1)
            sendBytes(server, Array(lines.joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8) + rest)
            pump(client, server)
        } else {
            send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            finish(client)
        }
    }

    /// SOCKS5: the greeting (answered "no authentication"), one `CONNECT`, then a tunnel.
    private func serveSOCKS5(_ client: Int32) {
        guard let greeting = readExactly(client, 2), let methods = readExactly(client, Int(greeting[1])),
            methods.contains(0)
        else { return finish(client) }
        sendBytes(client, [5, 0])
        guard let request = readExactly(client, 4), request[0] == 5, request[1] == 1 else { return finish(client) }
        let host: String
        switch request[3] {
        case 1: host = readExactly(client, 4).map { $0.map(String.init).joined(separator: ".") } ?? ""
        case 3:
            let length = readExactly(client, 1).map { Int($0[0]) } ?? 0
            host = readExactly(client, length).map { String(decoding: $0, as: UTF8.self) } ?? ""
        case 4:
            host =
                readExactly(client, 16).map { bytes in
                    stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                        .joined(separator: ":")
                } ?? ""
        default: return finish(client)
        }
        guard !host.isEmpty, let portBytes = readExactly(client, 2) else { return finish(client) }
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        log.append("SOCKS5 \(host):\(port)")
        guard let server = connectTo(host, port) else {
            sendBytes(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0])  // connection refused
            return finish(client)
        }
        track(server)
        sendBytes(client, [5, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        pump(client, server)
    }

    /// `count` bytes, or `nil` when the peer closes first.
    private func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes[done...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }

    /// The request head (up to the blank line, without it) and the bytes read after it.
    private func readHead(_ fd: Int32) -> (String, [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 64 << 10 {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                return (String(decoding: buffer[..<end.lowerBound], as: UTF8.self), Array(buffer[end.upperBound...]))
            }
        }
        return nil
    }

    private func connectTo(_ host: String, _ port: Int) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(hosts[host.lowercased()] ?? host, String(port), &hints, &found) == 0, let first = found else {
            return nil
        }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0, connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            if fd >= 0 { close(fd) }
            entry = info.pointee.ai_next
        }
        return nil
    }

    private func send(_ fd: Int32, _ text: String) { sendBytes(fd, Array(text.utf8)) }

    private func sendBytes(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Copies bytes both ways until either side closes, then closes both.
    private func pump(_ a: Int32, _ b: Int32) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            copy(from: b, to: a)
            done.signal()
        }
        copy(from: a, to: b)
        done.wait()
        finish(a, b)
    }

    private func copy(from source: Int32, to destination: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(source, &chunk, chunk.count)
            guard count > 0 else { break }
            sendBytes(destination, Array(chunk[0..<count]))
        }
        shutdown(destination, Int32(SHUT_WR))
    }
}
