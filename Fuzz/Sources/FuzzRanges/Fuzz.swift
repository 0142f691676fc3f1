import Foundation

/// libFuzzer entry: any text as Range / Content-Range headers. The parsers answer within bounds.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let contentRange = ContentRange(text), let range = contentRange.range {
        precondition(range.lowerBound >= 0)
        if let total = contentRange.total { precondition(range.upperBound < total) }
    }
    let length = 1000
    switch RangeDecision.decide(range: text, ifRange: nil, etag: "\"e\"", lastModified: "d", length: length) {
    case .partial(let bytes): precondition(bytes.lowerBound >= 0 && bytes.upperBound < length && !bytes.isEmpty)
    case .full, .unsatisfiable: break
    }
    let head = ResponseDecision.Head(status: 206, contentRange: text)
    if case .write(let offset, _) = ResponseDecision.decide(
        head, requestedOffset: 500, bytesOnDisk: 500, validator: Validator(etag: "\"e\""))
    {
        precondition(offset == 500)
    }
    return 0
}
