import ITunesSearch
import NetworkBasics
import SystemBasics
import TransferEngine

/// Why the app could not do what was asked: one type for every front end, whatever layer failed.
///
/// Its ``Code`` is what each edge maps: the web API gives each code one HTTP status (with a JSON
/// body `{"v":1,"code":…,"message":…}`), the command line one exit status. Engine and catalog
/// failures keep their own error as ``cause``.
public struct DownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, as the edges tell it apart.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// No such track, download or library file.
        case notFound
        /// Not possible in the current state (resuming a finished download, a session in use).
        case conflict
        /// The request itself is wrong (a bad id, an empty search, a track with no preview).
        case badInput
        /// The catalog or the preview server failed, or could not be reached.
        case upstreamFailure
        /// The catalog asks to wait; ``DownloadError/retryAfter`` says how long.
        case rateLimited
        /// The request was refused (wrong host, origin or token).
        case forbidden
        /// Something failed on this machine (disk, database).
        case internalError
    }

    /// What failed below the app, when something did.
    public enum Cause: Sendable, Hashable {
        case transfer(TransferError)
        case catalog(CatalogError)
    }

    /// The kind of failure.
    public let code: Code
    /// One line for the user.
    public let message: String
    /// Seconds to wait before trying again (rate limiting).
    public let retryAfter: Int?
    /// The engine's or the catalog's own error.
    public let cause: Cause?
    /// The tracks the error is about, when it is about some and not the others asked for (the ids
    /// the catalog does not have, of a batch): the rest can go on without them.
    public private(set) var trackIDs: [Int] = []

    /// An error of the app's own.
    public init(_ code: Code, _ message: String, retryAfter: Int? = nil, trackIDs: [Int] = []) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.cause = nil
        self.trackIDs = trackIDs
    }

    /// What stops `home` from being used at all, before anything is opened in it: a file in
    /// its place or on its path, or a folder on its path this user may not open (another
    /// user's, say). Never an empty library instead.
    public static func homeProblem(_ home: HalfTunesHome) -> DownloadError? {
        let root = home.root.path
        if let file = FolderProblem.fileInTheWay(of: home.root) {
            let what = file == root ? "is a file, not a folder" : "cannot be made: \(file) is a file, not a folder"
            return DownloadError(.badInput, "the home \(root) \(what); choose another with --home or HALFTUNES_HOME")
        }
        if let closed = FolderProblem.closedFolder(on: home.root) {
            let what = closed == root ? "cannot be read by this user" : "cannot be read: \(closed) is not open to this user"
            return DownloadError(.badInput, "the home \(root) \(what); choose another with --home or HALFTUNES_HOME")
        }
        return nil
    }

    /// `home` cannot be written, and what was asked writes (`badInput`: another home is the fix).
    public static func readOnlyHome(_ home: HalfTunesHome) -> DownloadError {
        DownloadError(
            .badInput,
            "the home \(home.root.path) is read-only; choose another with --home or HALFTUNES_HOME "
                + "(list, search and play work in this one)")
    }

    /// The catalog has none of `ids` (`notFound`, with them as ``trackIDs``).
    public static func unknownTracks(_ ids: [Int]) -> DownloadError {
        let list = ids.map(String.init).joined(separator: ", ")
        return DownloadError(.notFound, "the catalog has no track \(list)", trackIDs: ids)
    }

    /// The app's view of an engine failure.
    public init(_ error: TransferError) {
        let code: Code
        switch error.code {
        case .unknownTransfer: code = .notFound
        case .invalidState, .sessionLocked: code = .conflict
        case .invalidURL, .invalidRequest, .invalidResumeData: code = .badInput
        case .httpStatus, .serverUnavailable, .network, .protocolViolation, .tooManyRedirects, .serverCertificateUntrusted,
            .serverCertificateHasBadDate, .secureConnectionFailed, .cannotDecodeContent, .fileTooLarge:
            code = .upstreamFailure
        default: code = .internalError
        }
        self.code = code
        // The owner is another process (a foreground `halftunes download`, as a rule): what to do.
        self.message =
            error.code == .sessionLocked
            ? "\(error.message): let it end, or stop it there (Ctrl-C pauses); halftunes list shows its downloads meanwhile"
            : error.message
        self.retryAfter = nil
        self.cause = .transfer(error)
    }

    /// The app's view of a catalog failure.
    public init(_ error: CatalogError) {
        switch error.code {
        case .invalidQuery: code = .badInput
        case .rateLimited: code = .rateLimited
        default: code = .upstreamFailure
        }
        message = error.message
        retryAfter = error.retryAfter.map { Int(max(1, $0.components.seconds)) }
        cause = .catalog(error)
    }

    /// Any error as the app's: its own, the engine's or the catalog's as they are, anything else
    /// as an internal error.
    public init(_ error: any Error) {
        switch error {
        case let error as DownloadError: self = error
        case let error as TransferError: self.init(error)
        case let error as CatalogError: self.init(error)
        default: self.init(.internalError, "\(error)")
        }
    }

    public var description: String { message }
}
