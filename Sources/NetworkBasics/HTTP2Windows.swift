import AsyncHTTPClient
import NIOCore
import NIOHTTP2

extension HTTPClient.Configuration {
    /// HTTP/2's windows when a client says nothing: what a stream (and the connection) may be sent
    /// before the client grants more.
    static let defaultHTTP2Window = 65_535

    /// Grants the server `bytes` of flow-control window on every HTTP/2 connection as it opens:
    /// each new stream's initial window (a SETTINGS frame) and the connection's (a WINDOW_UPDATE).
    ///
    /// Left at HTTP/2's 64 KiB, every stream stops after its first 64 KiB until the client's
    /// window update has crossed the link and the next bytes have come back: a round trip lost
    /// per download, on every file of a batch. curl and browsers grant megabytes up front.
    /// `bytes` is clamped to HTTP/2's maximum (2³¹ − 1).
    public mutating func grantsHTTP2Windows(of bytes: Int) {
        let window = min(max(bytes, Self.defaultHTTP2Window), Int(Int32.max))
        http2ConnectionDebugInitializer = { channel in
            let settings = HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(.settings([HTTP2Setting(parameter: .initialWindowSize, value: window)])))
            channel.write(settings, promise: nil)
            guard window > Self.defaultHTTP2Window else { return channel.eventLoop.makeSucceededVoidFuture() }
            let update = HTTP2Frame(
                streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: window - Self.defaultHTTP2Window))
            return channel.writeAndFlush(update)
        }
    }
}
