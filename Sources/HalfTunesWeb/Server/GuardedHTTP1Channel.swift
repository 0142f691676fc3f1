import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel with a ``ConnectionGuard`` in front of it, its idle timeout and
/// header limits set from ``ConnectionLimits``.
package struct GuardedHTTP1Channel: ServerChildChannel {
    package typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let connections: ConnectionCount

    package init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, connections: ConnectionCount) {
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: limits.maximumHeaderBytes, maxHeaderListSize: limits.maximumHeaderBytes, maxHeaderFieldCount: 100)
        inner = HTTP1Channel(
            responder: responder,
            configuration: .init(idleTimeout: TimeAmount(limits.idleTimeout), httpDecoderConfiguration: decoder))
        self.connections = connections
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { [connections] value in
            let operations = channel.pipeline.syncOperations
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            try operations.addHandler(ConnectionGuard(connections: connections), position: .before(codec))
            return value
        }
    }

    package func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the app's connection limits.
    static func guardedHTTP1(limits: ConnectionLimits, connections: ConnectionCount) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits, connections: connections) }
    }
}
