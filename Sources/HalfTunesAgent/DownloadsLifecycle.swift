import HalfTunesKit
import ServiceLifecycle

/// Keeps the download service for the server's life, and closes it cleanly on shutdown:
/// running transfers stop where they are and resume at the next start.
struct DownloadsLifecycle: Service {
    let service: DownloadService

    /// Wraps a download service.
    init(_ service: DownloadService) { self.service = service }

    func run() async throws {
        try? await gracefulShutdown()
        await service.close()
    }
}
