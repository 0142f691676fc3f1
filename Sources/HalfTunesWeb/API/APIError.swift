import Foundation
import Hummingbird
import HalfTunesKit
import ITunesSearch
import Transfers

/// An error the API answers with: a status and `{"error": message}`.
struct APIError: Error {
    let status: HTTPResponse.Status
    let message: String

    var response: Response {
        let body = (try? JSONEncoder().encode(["error": message])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The API's answer for a catalog failure: the catalog's own words, with a fitting status.
    init(_ error: CatalogError) {
        switch error.code {
        case .invalidQuery: status = .badRequest
        case .rateLimited: status = .tooManyRequests
        case .timeout: status = .gatewayTimeout
        default: status = .badGateway
        }
        message = error.message
    }

    init(status: HTTPResponse.Status, message: String) {
        self.status = status
        self.message = message
    }
}

/// Turns thrown errors into JSON answers, so the page can show them.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response
        } catch let error as CatalogError {
            return APIError(error).response
        } catch let error as DownloadError {
            return APIError(status: .conflict, message: error.description).response
        } catch let error as TransferError {
            return APIError(status: error.code == .unknownTransfer ? .notFound : .conflict, message: error.message).response
        } catch let error as HTTPError {
            return APIError(status: error.status, message: error.body ?? "\(error.status.reasonPhrase)").response
        } catch {
            return APIError(status: .internalServerError, message: "\(error)").response
        }
    }
}
