import DemoCatalog
import Foundation
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A preview its server redirects to another host (a CDN's edge): downloaded there, and resumed
/// there with `Range` + `If-Range` after a pause.
@Suite("Redirects to another host", .timeLimit(.minutes(1)))
struct RedirectResumeTests {
    @Test("paused and resumed through a redirect: only the rest is fetched, validated, at the other host")
    func resumeAcrossRedirect() async throws {
        try await withDemoCatalog { catalog, base in
            let other = "http://localhost:\(base.port!)"
            catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000, redirectTo: other), for: 1005)
            let preview = try #require(await catalog.preview(for: 1005))
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1005))
                    task.resume()
                    await recorder.wrote(task, atLeast: 200_000)
                    let data = try #require(
                        await withCheckedContinuation { continuation in
                            task.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
                        })
                    catalog.setFaults(PreviewFaults(redirectTo: other), for: 1005)
                    let resumed = session.downloadTask(withResumeData: data)
                    resumed.resume()
                    #expect(await recorder.completion(of: resumed) == nil)
                    #expect(try sha256Hex(#require(recorder.file(of: resumed))) == sha256Hex(preview.data))
                    let requests = catalog.previewRequests.filter { $0.trackId == 1005 }
                    #expect(requests.map(\.status) == [302, 200, 302, 206], "\(requests)")
                    let last = try #require(requests.last)
                    #expect(last.range?.hasPrefix("bytes=") == true && last.ifRange == preview.etag, "\(last)")
                    #expect(catalog.bytesSent(for: 1005) < preview.data.count + 300_000, "only the rest fetched again")
                }
            }
        }
    }
}
