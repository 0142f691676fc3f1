import Foundation
import HalfTunesKit
import Hummingbird

/// The one place an error becomes an HTTP answer: each ``DownloadError/Code`` has one status, and
/// the body is always `{"v":1,"code":…,"message":…}` (with `Retry-After` when rate limited).
enum ErrorMapping {
    /// The status of each code.
    static func status(for code: DownloadError.Code) -> HTTPResponse.Status {
        switch code {
        case .notFound: .notFound
        case .conflict: .conflict
        case .badInput: .badRequest
        case .upstreamFailure: .badGateway
        case .rateLimited: .tooManyRequests
        case .forbidden: .forbidden
        case .internalError: .internalServerError
        }
    }

    /// The code of a status the server library answered by itself (an unknown route, a bad method).
    static func code(for status: HTTPResponse.Status) -> DownloadError.Code {
        switch status.code {
        case 404: .notFound
        case 403, 421: .forbidden
        case 409: .conflict
        case 429: .rateLimited
        case 400..<500: .badInput
        default: .internalError
        }
    }

    /// The answer for an error, with the status of its code.
    static func response(_ error: DownloadError) -> Response { response(error, status: status(for: error.code)) }

    /// The answer for an error, with a given status (the guard's 421 for a refused `Host`).
    static func response(_ error: DownloadError, status: HTTPResponse.Status) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if let seconds = error.retryAfter { headers[.retryAfter] = String(seconds) }
        let body = (try? WireEncoding.data(ErrorDocument(error))) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Turns whatever a handler throws into the mapped JSON answer.
package struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let code = ErrorMapping.code(for: error.status)
            return ErrorMapping.response(DownloadError(code, error.body ?? error.status.reasonPhrase), status: error.status)
        } catch {
            return ErrorMapping.response(DownloadError(error))
        }
    }
}
