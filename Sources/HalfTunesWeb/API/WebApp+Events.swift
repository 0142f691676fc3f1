import Foundation
import HTTPTypes
import HalfTunesKit
import Hummingbird
import ServiceLifecycle

extension WebApp {
    /// `/api/events`: every download event, live, as Server-Sent Events. Each open tab has its own
    /// stream; streams end when the server shuts down.
    ///
    /// A tab that does not keep up holds at most a bounded backlog (progress merged, state changes
    /// kept); one that falls too far behind gets a `reload` event and its stream ends (the page
    /// reloads its listing and reconnects). A client that stops reading altogether is
    /// disconnected once a write has waited ``ConnectionLimits/sendTimeout``.
    package func addEventRoutes(to router: Router<WebContext>) {
        let (sendTimeout, heartbeat) = (limits.sendTimeout, limits.eventHeartbeat)
        router.on(RouterPath(APIRoute.Pattern.events.path), method: .get) { _, context -> Response in
            let events = try await control.events()
            let channel = context.channel
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: ResponseBody { writer in
                    let watchdog = SendWatchdog(timeout: sendTimeout) { channel.close(promise: nil) }
                    defer { watchdog.stop() }
                    try await watchdog.timing { try await writer.write(ByteBuffer(string: "retry: 1000\n: connected\n\n")) }
                    for await line in EventStreamLines.lines(events, heartbeat: heartbeat).cancelOnGracefulShutdown() {
                        if case .end = line { break }
                        try await watchdog.timing { try await writer.write(ByteBuffer(string: try line.text())) }
                    }
                    try await writer.finish(nil)
                })
        }
    }
}
