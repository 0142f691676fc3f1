/// Why a transfer (or a session operation) failed, in words fit for a user.
///
/// `isPermanent` tells whether trying again can help: a 404 will not get better, a full disk or a
/// dropped connection might.
public struct TransferError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The URL cannot be fetched (malformed, or not http/https).
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// Too many redirects, or a redirect loop.
        public static let tooManyRedirects = Code(rawValue: "tooManyRedirects")
        /// The server refused for good (404, 403, 410, other 4xx).
        public static let httpStatus = Code(rawValue: "httpStatus")
        /// The server kept failing (5xx, 429, 503) after every retry.
        public static let serverUnavailable = Code(rawValue: "serverUnavailable")
        /// The network kept failing (resets, timeouts, stalls) after every retry.
        public static let network = Code(rawValue: "network")
        /// The server's answer was inconsistent (a Content-Range that does not match the request,
        /// a body shorter than announced) after every retry.
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// No space left on the device; the partial file is kept for a later resume.
        public static let diskFull = Code(rawValue: "diskFull")
        /// Reading or writing a file failed.
        public static let fileSystem = Code(rawValue: "fileSystem")
        /// Another process owns the session.
        public static let sessionLocked = Code(rawValue: "sessionLocked")
        /// The journal could not be read or written.
        public static let journal = Code(rawValue: "journal")
        /// No transfer with that identifier.
        public static let unknownTransfer = Code(rawValue: "unknownTransfer")
        /// The operation does not apply in the transfer's state (resuming a completed one, say).
        public static let invalidState = Code(rawValue: "invalidState")
        /// The resume data cannot be used.
        public static let invalidResumeData = Code(rawValue: "invalidResumeData")
        /// The request cannot be made as asked (a header the engine owns, a method other than GET).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// The server's certificate is not trusted: self-signed, an unknown authority, or for
        /// another host name (the message says which).
        public static let serverCertificateUntrusted = Code(rawValue: "serverCertificateUntrusted")
        /// The server's certificate has expired, or is not valid yet.
        public static let serverCertificateHasBadDate = Code(rawValue: "serverCertificateHasBadDate")
        /// The TLS handshake failed for a protocol reason (no common version or cipher, not TLS at all).
        public static let secureConnectionFailed = Code(rawValue: "secureConnectionFailed")
        /// The server's name could not be resolved (a request answered in memory).
        public static let cannotFindHost = Code(rawValue: "cannotFindHost")
        /// No connection could be made to the server (a request answered in memory).
        public static let cannotConnectToHost = Code(rawValue: "cannotConnectToHost")
        /// No answer in time (a request answered in memory).
        public static let timedOut = Code(rawValue: "timedOut")
        /// The body was not valid in the content coding it came with (a damaged or cut-short gzip).
        public static let cannotDecodeContent = Code(rawValue: "cannotDecodeContent")
        /// The file is larger than the session allows (``TransferSessionConfiguration/maximumFileSize``).
        public static let fileTooLarge = Code(rawValue: "fileTooLarge")
        /// The request was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The process ended while this file was being finished (``TransferSessionConfiguration/finisher``),
        /// twice: the transfer is set aside, its complete partial file kept, rather than tried again.
        public static let finishingInterrupted = Code(rawValue: "finishingInterrupted")
    }

    /// The kind of failure.
    public let code: Code
    /// A one-line explanation.
    public let message: String
    /// Whether retrying cannot help.
    public let isPermanent: Bool
    /// The HTTP status the server answered, when the failure was one (`httpStatus`, `serverUnavailable`).
    public let httpStatus: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, permanent: Bool, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.isPermanent = permanent
        self.httpStatus = httpStatus
    }

    public var description: String { message }

    /// The process ended twice while finishing the file (``Code/finishingInterrupted``).
    static let finishingInterrupted = TransferError(
        .finishingInterrupted, "the process stopped while finishing this file, twice; kept as downloaded", permanent: true)

    /// The file passed ``TransferSessionConfiguration/maximumFileSize``: announced as `announced`
    /// bytes, or grown past the limit when `nil`.
    static func fileTooLarge(_ url: String, announced: Int64?, limit: Int64) -> TransferError {
        let what = announced.map { "is \($0) bytes, over" } ?? "went past"
        return TransferError(.fileTooLarge, "the file at \(url) \(what) the \(limit)-byte limit", permanent: true)
    }

    static func invalidURL(_ url: String, _ why: String) -> TransferError {
        TransferError(.invalidURL, "cannot download \(url): \(why)", permanent: true)
    }

    static func httpStatus(_ status: Int, url: String) -> TransferError {
        let reason: String
        switch status {
        case 401: reason = "authorization required"
        case 403: reason = "access forbidden"
        case 404: reason = "not found"
        case 410: reason = "gone"
        default: reason = "refused"
        }
        return TransferError(
            .httpStatus, "the server answered HTTP \(status) (\(reason)) for \(url)", permanent: true, httpStatus: status)
    }

    static func unknown(_ id: TransferID) -> TransferError {
        TransferError(.unknownTransfer, "no transfer \(id) in this session", permanent: true)
    }

    static func invalidState(_ id: TransferID, _ state: TransferState, _ action: String) -> TransferError {
        TransferError(.invalidState, "cannot \(action) transfer \(id): it is \(state.rawValue)", permanent: true)
    }
}
