import Foundation
import HalfTunesKit
import HTTPTypes
import Hummingbird
import ServiceLifecycle

extension WebApp {
    /// `/api/events`: every download event, live, as Server-Sent Events. Each open tab has its own
    /// stream; streams end when the server shuts down.
    func addEventRoutes(to router: Router<BasicRequestContext>) {
        router.get("/api/events") { _, _ -> Response in
            let events = service.events()
            let encoder = JSONEncoder()
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "retry: 1000\n: connected\n\n"))
                    for await event in events.cancelOnGracefulShutdown() {
                        let data = try encoder.encode(EventItem(event))
                        try await writer.write(ByteBuffer(string: "data: \(String(decoding: data, as: UTF8.self))\n\n"))
                    }
                    try await writer.finish(nil)
                })
        }
    }
}
