import AsyncHTTPClient
import NIOCore

/// How the engine's connections read from their sockets: up to ``maximumBytes`` a read (more while
/// a large body streams: ``StreamReadSize``), one read each time the socket is readable.
///
/// NIO's default reads at most 64 KiB at a time, four times a wake-up, into as many pooled
/// buffers. A 300 KB preview then took some seven socket reads and as many body parts, each a
/// trip through the HTTP decoder, the client's state machine, the body writer and a `write` to
/// the file; with reads of up to 256 KiB it takes about four. The buffer still adapts to what
/// arrives (a 2 KB file reads into a small one), and one read a wake-up keeps one buffer a
/// connection (1 MiB at most for four), where four reads a wake-up of that size kept up to four
/// each (3–5 MiB more at peak, measured).
///
/// AsyncHTTPClient has no setting for either; its connection initializers (the hooks it calls
/// with each new connection's channel, HTTP/1 and HTTP/2 alike) are where they go.
enum ConnectionReads {
    /// The most one read of a connection takes, unless a large body streams (``StreamReadSize``).
    static let maximumBytes = 256 << 10

    /// Sets `channel` to read as above.
    static func prepare(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.setOption(
            ChannelOptions.recvAllocator,
            value: StreamReadSize()
        ).flatMap {
            channel.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
        }
    }

    /// `configuration` with every new connection prepared (after what it already did to them).
    static func applied(to configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.http1_1ConnectionDebugInitializer = preparing(after: configuration.http1_1ConnectionDebugInitializer)
        configuration.http2ConnectionDebugInitializer = preparing(after: configuration.http2ConnectionDebugInitializer)
        return configuration
    }

    /// A connection initializer that runs `earlier` (if any), then ``prepare(_:)``.
    private static func preparing(
        after earlier: (@Sendable (any Channel) -> EventLoopFuture<Void>)?
    ) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        { channel in
            (earlier?(channel) ?? channel.eventLoop.makeSucceededVoidFuture()).flatMap { prepare(channel) }
        }
    }
}
