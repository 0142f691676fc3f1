import ArgumentParser
import Foundation
import HalfTunesKit
import HalfTunesTerminal

/// The command line's edge for errors: one line on standard error, and an exit status per
/// ``DownloadError/Code`` (the same whether the work ran here or in the agent).
enum ExitStatus {
    /// The exit status of each code.
    static func of(_ code: DownloadError.Code) -> Int32 {
        switch code {
        case .internalError: 1
        case .badInput: 2
        case .notFound: 3
        case .conflict: 4
        case .upstreamFailure: 5
        case .rateLimited: 6
        case .forbidden: 7
        }
    }

    /// A download failed (its reason was shown with it).
    static let downloadFailed: Int32 = 8
    /// The audio player could not play (no audio device, or it failed).
    static let playerFailed: Int32 = 9
    /// Interrupted (Ctrl-C or SIGTERM); what was received is kept.
    static let interrupted: Int32 = 130

    /// The table `--help` and docs/cli.md show.
    static let table = """
        Exit status: 0 success; 1 internal error; 2 bad input; 3 not found; 4 conflict (not possible \
        in the current state, or the session is in use); 5 the catalog, preview server or the agent \
        failed or is unreachable; 6 rate limited (wait and retry); 7 refused; 8 a download \
        failed; 9 the audio player could not play (no audio device, or it failed); 64 bad command-line usage; 130 interrupted.
        """
}

/// Runs a command body, turning a failure into one line on standard error and its exit status.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as PlaybackFailure {
        Terminal.warn(error.description)
        throw ExitCode(ExitStatus.playerFailed)
    } catch {
        let failure = DownloadError(error)
        Terminal.warn(failure.message + hint(for: failure))
        throw ExitCode(ExitStatus.of(failure.code))
    }
}

/// What to do next, after a failure's message, when there is something to say: a catalog out of
/// reach (offline, as a rule) has the offline demo and `--catalog`; one whose authority is not
/// trusted, `--cacert`.
func hint(for failure: DownloadError) -> String {
    guard case .catalog(let cause) = failure.cause else { return "" }
    if cause.code == .hostUnreachable || cause.code == .timeout {
        return " (offline? `halftunes demo` runs the app on a built-in catalog; --catalog URL or HALFTUNES_CATALOG picks another)"
    }
    if cause.code == .tlsFailure, cause.message.hasSuffix("(self-signed or unknown authority)") {
        return "; --cacert FILE (or HALFTUNES_CA_BUNDLE) trusts an authority of your own"
    }
    return ""
}
