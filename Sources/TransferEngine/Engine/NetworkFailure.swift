import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NetworkBasics

/// What a failed request means for a transfer: a reason in words, and whether trying again helps.
enum NetworkFailure {
    /// The error a permanent failure becomes.
    static func permanentError(_ error: any Error, reason: String) -> TransferError {
        if let error = error as? HTTPClientError, error == .redirectLimitReached || error == .redirectCycleDetected {
            return TransferError(.tooManyRedirects, reason, permanent: true)
        }
        return TransferError(.invalidURL, reason, permanent: true)
    }

    /// The error a TLS problem becomes: permanent, its code the kind of problem.
    static func tlsError(_ problem: TLSProblem, server: String) -> TransferError {
        let code: TransferError.Code
        switch problem {
        case .untrusted, .unverified, .wrongName: code = .serverCertificateUntrusted
        case .expired, .notYetValid: code = .serverCertificateHasBadDate
        case .handshake: code = .secureConnectionFailed
        }
        return TransferError(code, problem.message(server: server), permanent: true)
    }

    /// A failure's reason, naming the server (`host:port`) when it is about the connection: a
    /// transfer's URL is not in its failure's text otherwise.
    static func classify(_ error: any Error, url: String, stallTimeout: Duration) -> (reason: String, permanent: Bool) {
        let server = TransferRecord.hostKey(of: url)
        if let error = error as? HTTPClientError {
            switch error {
            case .invalidURL, .emptyHost, .emptyScheme:
                return ("\(url) is not a URL that can be downloaded", true)
            case .redirectLimitReached, .redirectCycleDetected:
                return ("too many redirects (or a redirect loop) for \(url)", true)
            case .readTimeout:
                return ("the transfer stalled: no data for \(stallTimeout)", false)
            case .connectTimeout:
                return ("connecting to \(server) timed out", false)
            case .remoteConnectionClosed:
                return ("\(server) closed the connection mid-transfer", false)
            default:
                return ("\(error)", false)
            }
        }
        if error is HTTPParserError {
            return ("\(server) closed the connection before the body was complete", false)
        }
        if let error = error as? NIOConnectionError {
            guard let first = error.connectionErrors.first else { return ("cannot resolve \(error.host)", false) }
            return ("cannot connect to \(server): \(describe(first.error))", false)
        }
        if case ChannelError.connectTimeout = error { return ("connecting to \(server) timed out", false) }
        if let error = error as? IOError { return ("\(server): \(describe(error))", false) }
        return (describe(error), false)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }
}
