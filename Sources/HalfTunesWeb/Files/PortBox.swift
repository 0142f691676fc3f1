import Synchronization

/// The port the server got, known only once it listens.
final class PortBox: Sendable {
    private let port = Mutex(0)
    var value: Int { port.withLock { $0 } }
    func set(_ value: Int) { port.withLock { $0 = value } }
}
