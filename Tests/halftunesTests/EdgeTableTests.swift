import HalfTunesKit
import Testing

@testable import HalfTunesWeb
@testable import halftunes

@Suite("Error codes at the edges (pure)")
struct EdgeTableTests {
    @Test(
        "each code: one HTTP status at the API, one exit status at the command line",
        arguments: [
            (DownloadError.Code.internalError, 500, Int32(1)), (.badInput, 400, 2), (.notFound, 404, 3), (.conflict, 409, 4),
            (.upstreamFailure, 502, 5), (.rateLimited, 429, 6), (.forbidden, 403, 7),
        ])
    func table(code: DownloadError.Code, status: Int, exit: Int32) {
        #expect(ErrorMapping.status(for: code).code == status)
        #expect(ExitStatus.of(code) == exit)
    }

    @Test("exit statuses are distinct, apart from success, a failed download and an interruption, and all in --help")
    func distinct() {
        let statuses = DownloadError.Code.allCases.map(ExitStatus.of)
        #expect(Set(statuses + [0, ExitStatus.downloadFailed, ExitStatus.interrupted]).count == statuses.count + 3)
        for status in statuses + [ExitStatus.downloadFailed, ExitStatus.interrupted] {
            #expect(ExitStatus.table.contains(" \(status) "), "\(status) is not explained")
        }
    }
}
