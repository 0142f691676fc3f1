import Foundation

/// A bandwidth cap as curl's `--limit-rate` writes it: bytes a second, with an optional `k`, `m`
/// or `g` (any case; powers of 1024) — `500k`, `2M`, `1.5m` — from the flag, else
/// `HALFTUNES_LIMIT_RATE`. Pure.
public enum RateSetting {
    /// The cap in bytes a second, `nil` for none.
    ///
    /// - Throws: ``SettingError`` naming the value when it is not a rate.
    public static func bytesPerSecond(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SettingError) -> Int? {
        let (text, origin) =
            explicit.map { ($0, "--limit-rate") }
            ?? (environment["HALFTUNES_LIMIT_RATE"].map { ($0, "HALFTUNES_LIMIT_RATE") } ?? ("", ""))
        guard !text.isEmpty else { return nil }
        guard let rate = parse(text) else {
            throw SettingError("\(origin): \"\(text)\" is not a rate such as 500k, 2M or 1048576 (bytes a second)")
        }
        return rate
    }

    /// `500k` → 512000; `nil` when `text` is not a positive rate.
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let multipliers: [Character: Double] = ["k": 1024, "m": 1024 * 1024, "g": 1024 * 1024 * 1024]
        var number = Substring(trimmed)
        var multiplier = 1.0
        if let last = trimmed.last?.lowercased().first, let factor = multipliers[last] {
            multiplier = factor
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value > 0, value * multiplier >= 1,
            value * multiplier < Double(Int.max)
        else { return nil }
        return Int(value * multiplier)
    }
}
