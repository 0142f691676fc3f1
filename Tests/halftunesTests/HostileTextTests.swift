import Foundation
import Hummingbird
import TestSupport
import Testing

/// Text a catalog or a preview server sends never drives the user's terminal.
@Suite("hostile text", .timeLimit(.minutes(1)))
struct HostileTextTests {
    /// Terminal control: set the window title, clear the screen, ring the bell.
    static let escapes = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31m"

    @Test("a catalog's error message with terminal escapes: told on stderr with no ESC or BEL byte left")
    func catalogErrorMessage() async throws {
        let router = Router()
        router.get("/search") { _, _ -> Response in
            let body = try JSONSerialization.data(withJSONObject: ["errorMessage": "\(Self.escapes)Invalid value(s)"])
            return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        try await withTestServer(router) { base in
            try await withTemporaryDirectory { home in
                let result = try await runHalftunes(["search", "lanterns"], home: home, catalog: base)
                #expect(result.status != 0)
                #expect(result.stderr.contains("Invalid value(s)"), "\(result.stderr)")
                #expect(
                    !result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{07}"), "\(result.stderr.debugDescription)")
            }
        }
    }
}
