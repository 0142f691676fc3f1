import Foundation

/// Decodes JSON that came from outside the process — a server's answer, a file another program
/// may have written — without the crash Foundation's `JSONDecoder` has on one shape of bad input.
///
/// `JSONDecoder` (FoundationEssentials, Swift 6.3 on Linux) stops at the 513th nested array with a
/// "too deeply nested" error, and building that error's source location traps when that `[` is the
/// input's last byte: 513 `[` and nothing after end the process (`{"a":` 512 times and one `[`
/// too). A document whose last byte is `[` is never JSON, so such input is refused here, with the
/// error `JSONDecoder` gives for any other input that is not JSON; every other input goes to it
/// unchanged.
public enum JSONInput {
    /// Decodes `type` from `data` with `decoder`, as `decoder.decode(_:from:)` does, except that
    /// input ending in `[` is refused before `JSONDecoder` sees it.
    ///
    /// - Throws: `DecodingError.dataCorrupted` at the top level for such input, else what
    ///   `decoder` throws.
    public static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        guard data.last != UInt8(ascii: "[") else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON."))
        }
        return try decoder.decode(type, from: data)
    }
}
