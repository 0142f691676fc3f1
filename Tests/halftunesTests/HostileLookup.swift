import Foundation
import Hummingbird

extension Router<BasicRequestContext> {
    /// Answers `/lookup?id=…` for the ids asked among `known`, each a track named `"\(name) ID"` by
    /// Fuzz whose preview URL `preview` gives (from the id and the host the request named): the
    /// catalog half of a hostile test server.
    func addHostileLookup(known: ClosedRange<Int>, name: String, preview: @escaping @Sendable (Int, String) -> String) {
        get("/lookup") { request, _ -> Response in
            let asked = (request.uri.queryParameters.get("id") ?? "").split(separator: ",").compactMap { Int($0) }
            let here = request.head.authority ?? "127.0.0.1"
            let tracks: [[String: Any]] = asked.filter { known.contains($0) }.map { id in
                [
                    "wrapperType": "track", "kind": "song", "trackId": id, "trackName": "\(name) \(id)",
                    "artistName": "Fuzz", "collectionName": "Bad Bytes", "previewUrl": preview(id, here),
                ]
            }
            let body = try JSONSerialization.data(withJSONObject: ["resultCount": tracks.count, "results": tracks])
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
