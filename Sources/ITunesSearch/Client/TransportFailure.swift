import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NetworkBasics

/// Turns what the HTTP stack throws into the catalog's typed errors.
enum TransportFailure {
    static func catalogError(
        for error: any Error, host: String, url: URL, timeout: Duration, proxies: ProxySettings = .none
    ) async -> CatalogError {
        if let (problem, server) = await TLSProblem.diagnose(error, url: url, proxies: proxies) {
            return CatalogError(code: .tlsFailure, message: problem.message(server: server))
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return .timeout(host, after: timeout)
            case .remoteConnectionClosed:
                return .hostUnreachable(host, detail: "the connection was closed")
            default:
                return .hostUnreachable(host, detail: "\(error)")
            }
        }
        if error is NIOTooManyBytesError {
            return .malformedResponse(reason: "the body is larger than 16 MB")
        }
        if case ChannelError.connectTimeout = error {
            return .timeout(host, after: timeout)
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return .hostUnreachable(host, detail: describe(first.error))
            }
            return .hostUnreachable(host, detail: "cannot resolve \(error.host)")
        }
        if error is CancellationError {
            return .timeout(host, after: timeout)
        }
        return .hostUnreachable(host, detail: describe(error))
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        return "\(error)"
    }
}
