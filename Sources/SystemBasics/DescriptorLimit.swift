#if canImport(Glibc)
    import Glibc
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
///
/// A server's connections, downloads and files share it; distributions set the soft limit low
/// (often 1,024) and the hard one high, for programs to raise as they need.
public enum DescriptorLimit {
    /// The soft limit now (1,024 when it cannot be read).
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one (at most `ceiling`) and returns the soft limit then
    /// in force; unchanged when it is already there or the kernel refuses.
    @discardableResult
    public static func raiseToHard(ceiling: Int = 1 << 20) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current }
        let wanted = min(limit.rlim_max, rlim_t(ceiling))
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current
    }
}
