/// The lines of the terminal display, fitted to a width by display columns (so CJK and emoji
/// titles line up): a track's title, a bar, "42.0% of 1.1 MB", its speed and the time left —
/// the parts at the end dropped first when the line does not fit.
public enum ProgressLine {
    /// What a line shows about its download.
    public struct Figures: Sendable, Hashable {
        public var received: Int64
        public var expected: Int64?
        /// Recent bytes per second, when known.
        public var bytesPerSecond: Double?

        /// Figures.
        public init(received: Int64, expected: Int64?, bytesPerSecond: Double? = nil) {
            (self.received, self.expected, self.bytesPerSecond) = (received, expected, bytesPerSecond)
        }

        /// "0:12 left", when both the total and a speed are known.
        var timeLeft: String? {
            guard let expected, let rate = bytesPerSecond, rate > 0, expected >= received else { return nil }
            let seconds = Int((Double(expected - received) / rate).rounded(.up))
            return seconds >= 3600
                ? "\(seconds / 3600):\(twoDigits(seconds / 60 % 60)):\(twoDigits(seconds % 60)) left"
                : "\(seconds / 60):\(twoDigits(seconds % 60)) left"
        }

        var fraction: Double? {
            guard let expected, expected > 0 else { return nil }
            return min(1, max(0, Double(received) / Double(expected)))
        }

        private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    }

    /// A download in progress: `title [####----] 42.0% of 1.1 MB 3.2 MB/s 0:12 left`, in at most
    /// `width - 1` columns (a line that fills the last column wraps on some terminals).
    public static func progress(title: String, _ figures: Figures, width: Int, color: Bool) -> String {
        let room = max(width - 1, 10)
        // On a wide terminal the figures have fixed widths, so the bars of several lines line up.
        let wide = room >= 70
        func field(_ text: String, _ columns: Int) -> String {
            wide ? String(repeating: " ", count: max(0, columns - DisplayWidth.of(text))) + text : text
        }
        let amount = field(ProgressText.progress(received: figures.received, expected: figures.expected), 18)
        let speed = figures.bytesPerSecond.map { field(ProgressText.rate(bytesPerSecond: $0), 10) }
        let left = figures.timeLeft.map { field($0, 10) }
        let barWidth = min(30, max(6, room / 5))
        let candidates: [[String?]] = [["bar", amount, speed, left], ["bar", amount, speed], ["bar", amount], [amount]]
        for parts in candidates {
            let tail = parts.compactMap { $0 }
            let plainTail = tail.map { $0 == "bar" ? String(repeating: "#", count: barWidth + 2) : $0 }.joined(separator: " ")
            let titleRoom = room - DisplayWidth.of(plainTail) - 1
            guard titleRoom >= min(10, DisplayWidth.of(title)) || parts.count == 1 else { continue }
            let shownTitle = DisplayWidth.pad(DisplayWidth.truncate(title, to: max(titleRoom, 1)), to: max(titleRoom, 1))
            let rendered = tail.map { $0 == "bar" ? bar(figures.fraction, width: barWidth, color: color) : $0 }
            return DisplayWidth.truncate(shownTitle + " " + rendered.joined(separator: " "), to: room, keeping: color)
        }
        return DisplayWidth.truncate(title, to: room)
    }

    /// A line of words after a title, cut to fit: `title — Paused`, `done  title — 1.3 MB`.
    public static func status(_ text: String, width: Int) -> String {
        DisplayWidth.truncate(text, to: max(width - 1, 10))
    }

    /// `[#####-----]`, the filled part in green unless colour is off.
    static func bar(_ fraction: Double?, width: Int, color: Bool) -> String {
        let filled = Int(((fraction ?? 0) * Double(width)).rounded(.down))
        let done = String(repeating: "#", count: filled)
        let left = String(repeating: "-", count: width - filled)
        return color ? "[\u{1B}[32m\(done)\u{1B}[0m\(left)]" : "[\(done)\(left)]"
    }
}

extension DisplayWidth {
    /// Like ``truncate(_:to:)``, for a line that may hold colour escapes (which take no columns):
    /// with `keeping`, lines with escapes are trusted to fit (they are built to).
    static func truncate(_ text: String, to columns: Int, keeping escapes: Bool) -> String {
        escapes && text.contains("\u{1B}") ? text : truncate(text, to: columns)
    }
}
