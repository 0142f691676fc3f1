import TransferEngine

extension LocalDownloadControl {
    public func bandwidthLimit() async throws(DownloadError) -> Int? {
        try await DownloadError.catching { try await runningService().bandwidthLimit }
    }

    public func setBandwidthLimit(_ bytesPerSecond: Int?) async throws(DownloadError) -> Int? {
        try await DownloadError.catching {
            let service = try await runningService()
            service.setBandwidthLimit(bytesPerSecond)
            return service.bandwidthLimit
        }
    }

    /// The service whose downloads run in this process: the agent's, or this command's own
    /// when it downloads. A command that only looks has none to cap: the cap is set when the
    /// downloads start.
    private func runningService() async throws -> DownloadService {
        if let service, !ownsService || configuration.startsTransfers { return service }
        throw DownloadError(
            .conflict,
            "no downloads run to cap: download (or serve) takes --limit-rate when it starts, "
                + "and halftunes limit-rate changes the running agent's")
    }
}
