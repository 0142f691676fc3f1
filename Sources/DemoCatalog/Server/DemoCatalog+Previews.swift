import Foundation
import Hummingbird

extension DemoCatalog {
    /// `GET`/`HEAD /previews/<id>.wav`: the preview with validators, honouring `Range` and `If-Range`.
    func previewResponse(_ request: Request, context: BasicRequestContext) -> Response {
        guard let file = context.parameters.get("file"), file.hasSuffix(".wav"),
            let id = Int(file.dropLast(4)), let preview = preview(for: id)
        else { return Response(status: .notFound) }

        var headers: HTTPFields = [
            .contentType: "audio/wav",
            .acceptRanges: "bytes",
            .eTag: preview.etag,
            .lastModified: preview.lastModified,
        ]
        let length = preview.data.count
        let decision = RangeDecision.decide(
            range: request.headers[.range], ifRange: request.headers[.ifRange],
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
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentLength] = String(bytes.count)
        if request.method == .head {
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let body = ByteBuffer(bytes: preview.data[bytes])
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
