import HalfTunesKit

/// Byte counts and progress as people read them: "1.1 MB", "12.3% of 1.1 MB", "3.2 MB/s".
public enum ProgressText {
    /// A size in decimal units, as file managers show them.
    public static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        switch count {
        case ..<1000: return "\(count) bytes"
        case ..<1_000_000: return format(value / 1000, "KB")
        case ..<1_000_000_000: return format(value / 1_000_000, "MB")
        default: return format(value / 1_000_000_000, "GB")
        }
    }

    /// "12.3% of 1.1 MB" when the total is known, else "456.7 KB"; "12.3% of ~31.2 MB" when the
    /// total is an estimate.
    public static func progress(received: Int64, expected: Int64?, estimated: Bool = false) -> String {
        guard let expected, expected > 0 else { return bytes(received) }
        let percent = min(100, max(0, Double(received) * 100 / Double(expected)))
        return "\(oneDecimal(percent))% of \(estimated ? "~" : "")\(bytes(expected))"
    }

    /// A rate: "3.2 MB/s".
    public static func rate(bytesPerSecond: Double) -> String {
        bytes(Int64(max(0, bytesPerSecond))) + "/s"
    }

    /// A wait before a retry: "0.4 s", "12 s", "2 min 5 s".
    public static func wait(_ delay: Duration) -> String {
        let seconds = delay.inSeconds
        if seconds < 10 { return "\(oneDecimal(max(0, seconds))) s" }
        let whole = Int64(seconds.rounded(.up))
        return whole < 120 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    private static func format(_ value: Double, _ unit: String) -> String { "\(oneDecimal(value)) \(unit)" }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
