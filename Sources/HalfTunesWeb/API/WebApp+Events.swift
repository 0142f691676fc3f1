import Foundation
import HTTPTypes
import HalfTunesKit
import Hummingbird
import ServiceLifecycle

extension WebApp {
    /// `/api/events`: every download event, live, as Server-Sent Events. Each open tab has its own
    /// stream; streams end when the server shuts down.
    func addEventRoutes(to router: Router<BasicRequestContext>) {
        router.on(RouterPath(APIRoute.Pattern.events.path), method: .get) { _, _ -> Response in
            let events = try await control.events()
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "retry: 1000\n: connected\n\n"))
                    for await event in events.cancelOnGracefulShutdown() {
                        try await writer.write(ByteBuffer(string: "data: \(try WireEncoding.line(WireEvent(event)))\n\n"))
                    }
                    try await writer.finish(nil)
                })
        }
    }
}
