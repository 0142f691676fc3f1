import Foundation
import NetworkBasics
import Testing

@Suite("Stored dates (pure)")
struct UTCTimestampTests {
    /// Foundation's formatter, set up as GRDB sets up its own: the text databases already hold.
    static let reference: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        return formatter
    }()

    /// Dates from 1900 to 2100: leap days, month and year ends, every millisecond digit; and the
    /// last millisecond of year 9999.
    static let dates: [Date] = {
        var generator = SystemRandomNumberGenerator()
        let fixed: [TimeInterval] = [
            0, -1, 0.0006, -0.0006, 0.9996, 951_782_400, 951_868_799.999, 1_709_164_800.5, 4_107_542_399.999, -2_208_988_800,
            1_795_470_000.123, 253_402_300_799.999,
        ]
        let random = (0..<2000).map { _ in
            TimeInterval(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)) / 1000
        }
        return (fixed + random).map(Date.init(timeIntervalSince1970:))
    }()

    @Test("writes the text Foundation's formatter writes")
    func writesTheSameText() {
        for date in Self.dates {
            #expect(UTCTimestamp.text(date) == Self.reference.string(from: date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test("writes a year past 9999 as the formatter does, with all its digits")
    func writesAWideYear() {
        for seconds in [253_402_300_800, 253_402_300_800.5, 317_000_000_000] as [TimeInterval] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(UTCTimestamp.text(date) == Self.reference.string(from: date), "\(seconds)")
        }
    }

    @Test("reads back what it writes, to the millisecond, and what the formatter writes")
    func readsBack() throws {
        for date in Self.dates {
            let text = Self.reference.string(from: date)
            let read = try #require(UTCTimestamp.date(from: text), "\(text)")
            #expect(Self.reference.string(from: read) == text)
            #expect(abs(read.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001)
        }
    }

    @Test(
        "reads SQLite's shorter forms and refuses what it does not know",
        arguments: [
            ("2024-02-29", 1_709_164_800.0), ("2024-02-29 12:30", 1_709_209_800), ("2024-02-29T12:30:15", 1_709_209_815),
            ("1969-12-31 23:59:59.5", -0.5),
        ])
    func shorterForms(text: String, seconds: Double) throws {
        let date = try #require(UTCTimestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0001)
    }

    @Test(
        "refuses what is not a stored date",
        arguments: ["", "2024-13-01", "2024-02-29 25:00", "2024-02-29Z", "yesterday", "2024-02-29 12:30:15+02:00"])
    func refuses(text: String) {
        #expect(UTCTimestamp.date(from: text) == nil)
    }
}
