import Foundation

/// What a `Range: bytes=…` header asks of a resource of known length. Several ranges, or a
/// header that is not a byte range, mean the whole resource (as RFC 9110 allows).
enum ByteRange: Equatable {
    case whole
    case partial(ClosedRange<Int64>)
    case unsatisfiable

    static func parse(_ header: String?, length: Int64) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let parts = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0, length > 0 else { return last.isEmpty ? .whole : .unsatisfiable }
            return .partial(max(length - suffix, 0)...(length - 1))
        }
        guard let start = Int64(first), last.isEmpty || Int64(last) != nil else { return .whole }
        guard start < length else { return .unsatisfiable }
        let end = min(Int64(last) ?? length - 1, length - 1)
        return end >= start ? .partial(start...end) : .whole
    }
}
