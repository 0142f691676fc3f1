/// Reads a Server-Sent Events stream (the WHATWG event-stream format) from chunks of bytes, which
/// may split lines and events anywhere: each complete event's `data` comes out once.
///
/// Lines end with LF, CR LF or CR; a blank line ends an event; `data:` lines join with LF; a
/// leading space after the colon is dropped; comments (`:`) and other fields are skipped.
public struct SSEParser: Sendable {
    private var line: [UInt8] = []
    private var data: [String] = []
    private var hasData = false
    private var lastWasCR = false

    /// A parser at the start of a stream.
    public init() {}

    /// Feeds bytes; returns the data of every event they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
        var events: [String] = []
        for byte in bytes {
            if byte == 10, lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 13
            if byte == 10 || byte == 13 {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the current line; returns an event's data when the line was blank and ended one.
    private mutating func endLine() -> String? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            guard hasData else { return nil }
            defer {
                data.removeAll()
                hasData = false
            }
            return data.joined(separator: "\n")
        }
        let text = String(decoding: line, as: UTF8.self)
        guard !text.hasPrefix(":") else { return nil }
        let (field, value) = Self.split(text)
        if field == "data" {
            data.append(value)
            hasData = true
        }
        return nil
    }

    private static func split(_ text: String) -> (field: Substring, value: String) {
        guard let colon = text.firstIndex(of: ":") else { return (text[...], "") }
        var value = text[text.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        return (text[..<colon], String(value))
    }
}
