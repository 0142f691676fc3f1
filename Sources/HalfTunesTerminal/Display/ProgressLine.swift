import HalfTunesKit

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
        /// Whether `expected` is an estimate (a batch's total while some of its tracks' sizes are
        /// not known yet): shown as "~31.2 MB".
        public var isEstimate: Bool

        /// Figures.
        public init(received: Int64, expected: Int64?, bytesPerSecond: Double? = nil, isEstimate: Bool = false) {
            (self.received, self.expected, self.bytesPerSecond) = (received, expected, bytesPerSecond)
            self.isEstimate = isEstimate
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
        let amount = field(
            ProgressText.progress(received: figures.received, expected: figures.expected, estimated: figures.isEstimate), 18)
        let speed = figures.bytesPerSecond.map { field(ProgressText.rate(bytesPerSecond: $0), 10) }
        let left = figures.timeLeft.map { field($0, 10) }
        let barWidth = min(30, max(6, room / 5))
        // With a bar, the line is built to fill `room` exactly; without, it is cut to fit.
        for parts in [[amount, speed, left], [amount, speed], [amount]] {
            let figuresText = parts.compactMap { $0 }.joined(separator: " ")
            let titleRoom = room - (barWidth + 2) - DisplayWidth.of(figuresText) - 2
            guard titleRoom >= max(1, min(10, DisplayWidth.of(title))) else { continue }
            let shownTitle = DisplayWidth.pad(DisplayWidth.truncate(title, to: titleRoom), to: titleRoom)
            return shownTitle + " " + bar(figures.fraction, width: barWidth, color: color) + " " + figuresText
        }
        return DisplayWidth.truncate(title + " " + amount, to: room)
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
