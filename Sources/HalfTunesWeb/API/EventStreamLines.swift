import AsyncAlgorithms
import HalfTunesKit

/// What an event stream (`/api/events`) sends: each event's `data:` line, and a comment line
/// (`: keep-alive`) every `heartbeat`. SSE clients ignore comments; they keep a silent stream
/// (downloads paused, or waiting to retry) from looking dead to a client's read timeout or a
/// proxy's, and find a client gone away. The events are read as the lines are taken (a client
/// that stops reading leaves them in its listener's bounded backlog, as before).
enum EventStreamLines {
    /// One line of the stream.
    enum Line: Sendable {
        case event(DownloadEvent)
        case keepAlive
        /// The events have ended: so does the stream.
        case end

        /// The line's text, with the blank line that ends it.
        func text() throws -> String {
            switch self {
            case .event(let event): "data: \(try WireEncoding.line(WireEvent(event)))\n\n"
            case .keepAlive: ": keep-alive\n\n"
            case .end: ""
            }
        }
    }

    /// The lines of `events`, a heartbeat's comment among them, then ``Line/end``.
    static func lines(
        _ events: AsyncStream<DownloadEvent>, heartbeat: Duration
    ) -> some AsyncSequence<Line, Never> & Sendable {
        merge(
            chain(events.map { Line.event($0) }, [Line.end].async),
            AsyncTimerSequence(interval: heartbeat, clock: .continuous).map { _ in Line.keepAlive })
    }
}
