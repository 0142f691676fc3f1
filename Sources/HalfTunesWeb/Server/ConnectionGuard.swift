import Foundation
import HalfTunesKit
import NIOCore
import NIOHTTP1

/// Connection hygiene the server library leaves to us, between NIO's HTTP/1 codec and
/// Hummingbird (which sees requests as swift-http-types, without a version).
///
/// - **HTTP/1.0.** A 1.0 request without keep-alive is answered as HTTP/1.0 (never chunked) and
///   the connection closed after it (Hummingbird would keep it open); one that asks for
///   keep-alive keeps it when its answer has a length.
/// - **Too many connections.** Past ``ConnectionLimits/maximumConnections`` the connection's
///   request is answered 503 with `Retry-After` and the connection closed, rather than left to stall.
/// - **Headers too large.** 431, not the library's generic 400.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let connections: ConnectionCount
    private var counted = false
    private var refused = false
    /// The requests waiting for their answer's head: version and keep-alive wish.
    private var waiting: [(version: HTTPVersion, keepAlive: Bool)] = []
    /// Close once the answer being written ends (an HTTP/1.0 keep-alive answer with no length).
    private var closeAfterAnswer = false

    init(connections: ConnectionCount) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = true
        refused = !connections.opened()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { connections.closed() }
        counted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if refused {
            if case .head(let head) = part {
                refuse(
                    context, version: head.version, status: .serviceUnavailable,
                    DownloadError(.rateLimited, "too many connections (\(connections.limit)); try again"),
                    extra: [("Retry-After", "1")])
            }
            return
        }
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
