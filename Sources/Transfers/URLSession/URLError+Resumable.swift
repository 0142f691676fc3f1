import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The user-info key of a download error's resume data. Its text is that of Apple's
/// `NSURLSessionDownloadTaskResumeData`, which Linux's Foundation does not define, so code that
/// looks the data up by either name finds it.
public let ResumableURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"

#if !canImport(Darwin)
    extension URLError {
        /// The resume data of a download that was cancelled or failed and can be resumed: hand it to
        /// ``ResumableURLSession/downloadTask(withResumeData:)``. Apple's Foundation has this
        /// property; Linux's does not, so the Transfers module adds it.
        public var downloadTaskResumeData: Data? { userInfo[ResumableURLSessionDownloadTaskResumeData] as? Data }
    }
#endif

extension URLError {
    /// The `URLError` a download task reports for an engine failure, with the engine's message as
    /// its description and the ``TransferError`` itself under `NSUnderlyingErrorKey`.
    static func download(_ error: TransferError, url: URL?, resumeData: Data? = nil) -> URLError {
        let code: URLError.Code
        switch error.code {
        case .invalidURL: code = .unsupportedURL
        case .invalidRequest: code = .unsupportedURL
        case .tooManyRedirects: code = .httpTooManyRedirects
        case .httpStatus, .serverUnavailable, .protocolViolation: code = .badServerResponse
        case .network: code = .networkConnectionLost
        case .diskFull, .fileSystem: code = .cannotWriteToFile
        case .sessionLocked: code = .backgroundSessionInUseByAnotherProcess
        case .invalidResumeData: code = .cannotDecodeRawData
        case .cannotDecodeContent: code = .cannotDecodeContentData
        case .fileTooLarge: code = .dataLengthExceedsMaximum
        case .serverCertificateUntrusted: code = .serverCertificateUntrusted
        case .serverCertificateHasBadDate: code = .serverCertificateHasBadDate
        case .secureConnectionFailed: code = .secureConnectionFailed
        case .cannotFindHost: code = .cannotFindHost
        case .cannotConnectToHost: code = .cannotConnectToHost
        case .timedOut: code = .timedOut
        case .cancelled: code = .cancelled
        default: code = .unknown
        }
        return make(code, error.message, url: url, underlying: error, resumeData: resumeData)
    }

    /// A `URLError` with a description, the failing URL and, when given, resume data.
    static func make(
        _ code: URLError.Code, _ message: String, url: URL?, underlying: (any Error)? = nil, resumeData: Data? = nil
    ) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        if let resumeData { info[ResumableURLSessionDownloadTaskResumeData] = resumeData }
        return URLError(code, userInfo: info)
    }
}
