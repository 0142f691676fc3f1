import Foundation
import HTTPRanges
import Hummingbird

extension DemoCatalog {
    /// `GET`/`HEAD /previews/<id>.wav`: the preview with validators, honouring `Range` and `If-Range`,
    /// and injecting whatever faults are set.
    func previewResponse(_ request: Request, context: BasicRequestContext) async -> Response {
        let arrival = arrive()
        guard let file = context.parameters.get("file"), file.hasSuffix(".wav"),
            let id = Int(file.dropLast(4)), let preview = await preview(for: id)
        else { return Response(status: .notFound) }
        let faults = takeFaults(for: id)
        let range = request.headers[.range]
        let ifRange = request.headers[.ifRange]
        func answer(_ status: HTTPResponse.Status, _ headers: HTTPFields = [:], bytes: Int = 0) -> Response {
            record(
                PreviewRequest(trackId: id, range: range, ifRange: ifRange, status: status.code, bodyBytes: bytes),
                arrival: arrival)
            return Response(status: status, headers: headers)
        }

        // A stale URL (an earlier generation's) is gone.
        let generation = FormQuery.parse(request.uri.query)["g"].flatMap(Int.init) ?? 0
        if generation != previewGeneration(of: id) {
            return answer(HTTPResponse.Status(code: staleStatus(of: id)), [.contentLength: "0"])
        }
        if let target = faults.redirectTo, let url = URL(string: target), let host = url.host,
            request.head.authority != "\(host):\(url.port ?? 80)"
        {
            return answer(.found, [.location: "\(target)/previews/\(id).wav", .contentLength: "0"])
        }
        if faults.unavailableResponses > 0 {
            return answer(.serviceUnavailable, [.retryAfter: String(faults.retryAfterSeconds), .contentLength: "0"])
        }
        if let failure = faults.failure, failure.count > 0 {
            return answer(.init(code: failure.status), [.contentLength: "0"])
        }

        var headers: HTTPFields = [
            .contentType: "audio/wav",
            .acceptRanges: "bytes",
            .eTag: preview.etag,
            .lastModified: preview.lastModified,
        ]
        let length = preview.data.count
        let decision = RangeDecision.decide(
            range: faults.ignoresRange ? nil : range, ifRange: ifRange,
            etag: preview.etag, lastModified: preview.lastModified, length: length)
        let status: HTTPResponse.Status
        let bytes: Range<Int>
        switch decision {
        case .full:
            status = .ok
            bytes = 0..<length
        case .partial(let range):
            status = .partialContent
            bytes = range.lowerBound..<(range.upperBound + 1)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(length)"
            headers[.contentLength] = "0"
            return answer(.rangeNotSatisfiable, headers)
        }
        if !faults.sendsNoLength { headers[.contentLength] = String(bytes.count) }
        record(
            PreviewRequest(trackId: id, range: range, ifRange: ifRange, status: status.code, bodyBytes: bytes.count),
            arrival: arrival)
        if request.method == .head {
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let body = preview.data[bytes]
        let dropAfter = faults.drops > 0 ? faults.dropAfterBytes : nil
        guard faults.bytesPerSecond != nil || dropAfter != nil || holdPoint(of: id) != nil || faults.sendsNoLength else {
            countSent(body.count, for: id)
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: faults.sendsNoLength ? nil : body.count) { writer in
                try await self.writeSlowly(
                    body, trackId: id, bytesPerSecond: faults.bytesPerSecond, dropAfter: dropAfter, to: &writer)
            })
    }

    /// Writes a body in small chunks, at a rate, cutting the connection after `dropAfter` bytes.
    private func writeSlowly(
        _ body: Data, trackId: Int, bytesPerSecond: Int?, dropAfter: Int?, to writer: inout any ResponseBodyWriter
    ) async throws {
        let chunk = bytesPerSecond.map { max(1024, min(64 * 1024, $0 / 20)) } ?? 64 * 1024
        var offset = body.startIndex
        var sent = 0
        while offset < body.endIndex {
            // The slice keeps the file's offsets: a hold stops at the same byte of the file
            // whatever range was asked.
            // (At most a minute, so that a test that forgot to release cannot hang its server's shutdown.)
            let holdEnds = ContinuousClock.now + .seconds(60)
            while let held = holdPoint(of: trackId), offset >= held, ContinuousClock.now < holdEnds {
                try await Task.sleep(for: .milliseconds(20))
            }
            var end = min(offset + chunk, body.endIndex)
            if let held = holdPoint(of: trackId), held > offset { end = min(end, held) }
            if let dropAfter { end = min(end, body.startIndex + dropAfter) }
            if end > offset {
                try await writer.write(ByteBuffer(bytes: body[offset..<end]))
                countSent(end - offset, for: trackId)
                sent += end - offset
                offset = end
            }
            if let dropAfter, sent >= dropAfter { throw DroppedConnection() }
            if let bytesPerSecond {
                try await Task.sleep(for: .milliseconds(max(1, chunk * 1000 / bytesPerSecond)))
            }
        }
        try await writer.finish(nil)
    }
}

/// Thrown from a body writer to cut the connection mid-body.
struct DroppedConnection: Error {}
