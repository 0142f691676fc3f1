import Foundation

/// Dates as SQLite stores them, `yyyy-MM-dd HH:mm:ss.SSS` in UTC (GRDB's storage format), written
/// and read with integer arithmetic.
///
/// GRDB formats a `Date` with a `DateFormatter`, which loads ICU: some 6 MiB of a small command's
/// memory and a formatter call per journal write. The text is the same, so databases written
/// either way read either way.
public enum UTCTimestamp {
    /// `date` as `yyyy-MM-dd HH:mm:ss.SSS` in UTC, to the nearest millisecond (as the formatter does).
    public static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.toNearestOrEven))
        let (seconds, millisecond) = floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        // A year outside 0...9999 keeps all its digits (padded to four, as the formatter does).
        let wideYear = (0...9999).contains(year) ? nil : Array(String(year).utf8)
        let yearWidth = wideYear.map { max(4, $0.count) } ?? 4
        // The bytes written in place: a journal write formats two dates, and a string per field
        // cost some 8,000 instructions a date.
        return String(unsafeUninitializedCapacity: yearWidth + 19) { text in
            func put(_ value: Int64, width: Int, at start: Int) {
                var value = value
                for index in (start..<start + width).reversed() {
                    text[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                }
            }
            if let wideYear {
                for index in 0..<yearWidth - wideYear.count { text[index] = UInt8(ascii: "0") }
                for (offset, byte) in wideYear.enumerated() { text[yearWidth - wideYear.count + offset] = byte }
            } else {
                put(year, width: 4, at: 0)
            }
            let at = yearWidth
            text[at] = UInt8(ascii: "-")
            put(month, width: 2, at: at + 1)
            text[at + 3] = UInt8(ascii: "-")
            put(day, width: 2, at: at + 4)
            text[at + 6] = UInt8(ascii: " ")
            put(secondOfDay / 3600, width: 2, at: at + 7)
            text[at + 9] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, width: 2, at: at + 10)
            text[at + 12] = UInt8(ascii: ":")
            put(secondOfDay % 60, width: 2, at: at + 13)
            text[at + 15] = UInt8(ascii: ".")
            put(millisecond, width: 3, at: at + 16)
            return yearWidth + 19
        }
    }

    /// The date a stored text gives: `yyyy-MM-dd`, optionally followed (after a space or `T`) by
    /// `HH:mm`, `:ss` and a fraction, in UTC. Nil for anything else (time zones included: the
    /// caller falls back to a full parser).
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += width
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = days(fromYear: year, month: month, day: day) * 86_400
        var fraction = 0.0
        if index < bytes.count {
            guard expect(" ") || expect("T"), let hour = number(2), expect(":"), let minute = number(2),
                hour < 24, minute < 60
            else { return nil }
            seconds += hour * 3600 + minute * 60
            if expect(":") {
                guard let second = number(2), second < 61 else { return nil }
                seconds += second
                if expect(".") {
                    var scale = 0.1
                    let start = index
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                        fraction += Double(bytes[index] - 48) * scale
                        scale /= 10
                        index += 1
                    }
                    guard index > start else { return nil }
                }
            }
            guard index == bytes.count else { return nil }
        }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (civil_from_days).
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
