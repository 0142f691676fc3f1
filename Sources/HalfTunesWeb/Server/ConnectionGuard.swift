import Foundation
import HalfTunesKit
import NIOCore
import NIOHTTP1
import NetworkBasics
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Connection hygiene the server library leaves to us, between NIO's HTTP/1 codec and
/// Hummingbird (which sees requests as swift-http-types, without a version).
///
/// - **HTTP/1.0.** A 1.0 request without keep-alive is answered as HTTP/1.0 (never chunked) and
///   the connection closed after it (Hummingbird would keep it open); one that asks for
///   keep-alive keeps it when its answer has a length.
/// - **Too many connections.** Past ``ConnectionLimits/maximumConnections`` the connection's
///   request is answered 503 with `Retry-After` and the connection closed, rather than left to stall.
/// - **Headers too large.** 431, not the library's generic 400.
/// - **Another user.** A connection from this machine whose socket the kernel says another user
///   owns (``LoopbackPeer``) has its request answered 403 and is closed: the page, its API and
///   its files are the user's who runs the server, whatever the other user learns of its address.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let connections: ConnectionCount
    private var counted = false
    /// Why every request of this connection is refused (too many connections, another user's).
    private var refusal: (status: HTTPResponseStatus, error: DownloadError, extra: [(String, String)])?
    private var refused = false
    /// The requests waiting for their answer's head: version and keep-alive wish.
    private var waiting: [(version: HTTPVersion, keepAlive: Bool)] = []
    /// Close once the answer being written ends (an HTTP/1.0 keep-alive answer with no length).
    private var closeAfterAnswer = false

    init(connections: ConnectionCount) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        if !connections.opened() {
            refusal = (
                .serviceUnavailable, DownloadError(.rateLimited, "too many connections (\(connections.limit)); try again"),
                [("Retry-After", "1")]
            )
        } else if let owner = Self.otherUser(of: context.channel) {
            let whose = owner.map { "another user's (uid \(geteuid()), not \($0)): run your own" } ?? "not known to be yours"
            refusal = (
                .forbidden, DownloadError(.forbidden, "this HalfTunes answers its own user; this connection is \(whose)"), []
            )
        }
    }

    /// Whether the client's socket is on this machine and not this process's user's: `.some(uid)`
    /// another user's, `.some(nil)` one the kernel's table does not list (it is refused too);
    /// `nil` for this user's connections, other machines' and Unix sockets', and where there is no table.
    static func otherUser(of channel: any Channel) -> uid_t?? {
        func end(_ address: SocketAddress?) -> LoopbackPeer.End? {
            switch address {
            case .v4(let v4)?: withUnsafeBytes(of: v4.address.sin_addr) { .init(address: Array($0), port: address?.port ?? 0) }
            case .v6(let v6)?:
                withUnsafeBytes(of: v6.address.sin6_addr) { .init(address: Array($0), port: address?.port ?? 0) }
            default: nil
            }
        }
        // Only this machine's connections have a row in its socket table (HostClass reads every
        // spelling of a loopback address, IPv4-mapped ones included).
        guard let peer = end(channel.remoteAddress), let local = end(channel.localAddress),
            let ip = channel.remoteAddress?.ipAddress, HostClass(ip) == .loopback
        else { return nil }
        switch LoopbackPeer.owner(of: peer, connectedTo: local) {
        case .user(let uid): return uid == geteuid() ? nil : .some(uid)
        case .unlisted: return .some(nil)
        case .unknown: return nil
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { connections.closed() }
        counted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if let refusal {
            if case .head(let head) = part, !refused {
                refuse(context, version: head.version, status: refusal.status, refusal.error, extra: refusal.extra)
            }
            return
        }
        if refused { return }
        guard case .head(var head) = part else { return context.fireChannelRead(data) }
        let keepAlive = head.isKeepAlive
        waiting.append((head.version, keepAlive))
        if head.version.major == 1 && head.version.minor == 0 && !keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            guard !waiting.isEmpty else { return context.write(data, promise: promise) }
            let request = waiting.removeFirst()
            guard request.version.major == 1 && request.version.minor == 0 else { return context.write(data, promise: promise) }
            head.version = .http1_0
            let hasLength = head.headers.contains(name: "content-length")
            let keepAlive = request.keepAlive && hasLength
            head.headers.replaceOrAdd(name: "connection", value: keepAlive ? "keep-alive" : "close")
            closeAfterAnswer = request.keepAlive && !hasLength
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAfterAnswer:
            closeAfterAnswer = false
            let written = context.eventLoop.makePromise(of: Void.self)
            if let promise { written.futureResult.cascade(to: promise) }
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError, error == .headerOverflow {
            return refuse(
                context, version: .http1_1, status: .requestHeaderFieldsTooLarge,
                DownloadError(.badInput, "the request's headers are too large"), extra: [])
        }
        context.fireErrorCaught(error)
    }

    /// Answers with `status` and the error's document, then closes the connection.
    private func refuse(
        _ context: ChannelHandlerContext, version: HTTPVersion, status: HTTPResponseStatus, _ error: DownloadError,
        extra: [(String, String)]
    ) {
        refused = true
        let body = ByteBuffer(bytes: (try? WireEncoding.data(ErrorDocument(error))) ?? Data())
        var headers = HTTPHeaders(extra)
        headers.add(name: "content-type", value: "application/json; charset=utf-8")
        headers.add(name: "content-length", value: String(body.readableBytes))
        headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
