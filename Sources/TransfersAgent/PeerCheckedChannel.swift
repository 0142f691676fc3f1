import HummingbirdCore
import Logging
import NIOCore
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// A server's channel behind a check of who connected: the peer's credentials (`SO_PEERCRED`,
/// set by the kernel when it connected) must be this user's; any other user's connection is
/// closed before a byte of it is read, whatever the socket's mode let through (root can open any
/// socket). Both agents' sockets use it.
package struct PeerCheckedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    package typealias Value = Inner.Value

    let inner: Inner

    package init(inner: Inner) { self.inner = inner }

    struct Refused: Error, CustomStringConvertible {
        let uid: UInt32?
        var description: String {
            uid.map { "a connection from uid \($0) refused: the agent serves uid \(geteuid()) only" }
                ?? "a connection whose peer could not be told refused"
        }
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let provider = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused(uid: nil))
        }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(PeerCredentials.option))
        return credentials.flatMap { credentials in
            guard credentials.uid == geteuid() else {
                logger.warning("\(Refused(uid: credentials.uid))")
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(Refused(uid: credentials.uid))
            }
            return inner.setup(channel: channel, logger: logger)
        }
    }

    package func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
