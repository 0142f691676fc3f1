import Foundation
import HalfTunesKit
import NIOCore

/// Why the server could not listen, in words a person can act on: NIO's own error reads
/// "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)".
package enum ListenFailure {
    /// The error to report for `error`, met while starting to listen on `host`:`port`; `nil` when
    /// it is not a failure to listen.
    package static func error(_ error: any Error, host: String, port: Int) -> DownloadError? {
        let place = "cannot listen on \(host):\(port)"
        if error is SocketAddressError.UnknownHost {
            return DownloadError(.badInput, "\(place): no address is known for the host \(host)")
        }
        guard let error = error as? IOError else { return nil }
        switch error.errnoCode {
        case EADDRINUSE:
            return DownloadError(
                .conflict,
                "\(place): the port is in use (another halftunes serve?); choose another with --port, or 0 for any free one")
        case EACCES:
            return DownloadError(
                .forbidden, "\(place): permission denied (ports below 1024 need privileges); choose another with --port")
        case EADDRNOTAVAIL:
            return DownloadError(.badInput, "\(place): \(host) is not an address of this machine")
        default:
            return nil
        }
    }
}
