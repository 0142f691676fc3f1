extension DownloadEvent {
    /// Whether it tells of a wait to retry.
    public var isRetry: Bool { if case .retrying = self { true } else { false } }

    /// Whether the download will not move again by itself.
    public var isFinal: Bool {
        switch self {
        case .completed, .failed, .removed: true
        case .progress, .stateChanged, .retrying, .fellBehind: false
        }
    }
}
