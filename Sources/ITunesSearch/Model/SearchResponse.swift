import Foundation
import NetworkBasics

/// Decodes the body the iTunes Search and Lookup APIs answer with.
///
/// Decoding is lenient where the catalog is loose (missing or oddly typed fields, results that are
/// not songs) and strict where a response is simply not one (not JSON, no `results` list).
public enum SearchResponse {
    /// Decodes the songs in a Search or Lookup response body.
    ///
    /// - Throws: ``CatalogError/malformedResponse`` saying what was wrong, or
    ///   ``CatalogError/badRequest`` when the body is the API's `{"errorMessage": …}`.
    public static func decodeTracks(from body: Data) throws(CatalogError) -> [Track] {
        guard let envelope = read(body) else { throw .malformedResponse(reason: "the body is not valid JSON") }
        if let tracks = envelope.tracks { return tracks }
        if let message = envelope.errorMessage { throw .badRequest(message: message) }
        guard envelope.isObject else { throw .malformedResponse(reason: "\"the body\" has the wrong type") }
        throw .malformedResponse(
            reason: envelope.resultsSeen ? "\"results\" has the wrong type" : "the JSON has no \"results\" field")
    }

    /// The API's `errorMessage` in a body (what it answers an HTTP 400 with), if it has one.
    static func errorMessage(in body: Data) -> String? { read(body)?.errorMessage }

    /// Whether a body's first bytes say UTF-16 or UTF-32 (a byte-order mark of one, or a zero
    /// byte among the first four: RFC 4627's test). The API answers in UTF-8, as RFC 8259 asks
    /// of JSON between systems; such a body is refused as not JSON.
    static func isUTF16Or32(_ body: Data) -> Bool {
        body.prefix(4).contains(0) || body.starts(with: [0xFE, 0xFF]) || body.starts(with: [0xFF, 0xFE])
    }

    /// What a body holds at its top level.
    private struct Envelope {
        /// Whether the body is an object at all.
        var isObject = true
        /// The songs of its `results`, when that is an array.
        var tracks: [Track]?
        /// Whether it has a `results` field (of whatever type).
        var resultsSeen = false
        /// Its `errorMessage`, when that is a string.
        var errorMessage: String?
    }

    /// The body read in one pass, `nil` when it is not JSON.
    private static func read(_ body: Data) -> Envelope? {
        guard !isUTF16Or32(body),
            case .success(let envelope) = body.withUnsafeBytes({ bytes in
                Result { () throws(NotJSON) in try readEnvelope(bytes) }
            })
        else { return nil }
        return envelope
    }

    /// The body's top level read with `JSONDecoder`'s rules: the first of two same keys counts,
    /// and a key that cannot be read spoils its object.
    private static func readEnvelope(_ bytes: UnsafeRawBufferPointer) throws(NotJSON) -> Envelope {
        var json = CatalogJSON(bytes)
        var envelope = Envelope()
        guard try json.peek() == UInt8(ascii: "{") else {
            try json.skipValue()
            try json.finish()
            envelope.isObject = false
            return envelope
        }
        try json.beginObject()
        var errorMessage: Range<Int>?
        var errorMessageSeen = false
        var first = true
        while let rawKey = try json.nextKey(&first) {
            guard let key = json.text(rawKey) else { throw NotJSON() }
            if key == "results", !envelope.resultsSeen {
                envelope.resultsSeen = true
                if try json.peek() == UInt8(ascii: "[") {
                    envelope.tracks = try readResults(&json)
                    continue
                }
            } else if key == "errorMessage", !errorMessageSeen {
                errorMessageSeen = true
                if try json.peek() == UInt8(ascii: "\"") {
                    errorMessage = try json.string()
                    continue
                }
            }
            try json.skipValue()
        }
        try json.finish()
        envelope.errorMessage = errorMessage.flatMap(json.text)
        return envelope
    }

    /// The songs of the `results` array that starts here.
    private static func readResults(_ json: inout CatalogJSON) throws(NotJSON) -> [Track] {
        try json.beginArray()
        var tracks: [Track] = []
        var first = true
        while try json.nextElement(&first) {
            if try json.peek() == UInt8(ascii: "{") {
                if let track = try readResult(&json) { tracks.append(track) }
            } else {
                try json.skipValue()
            }
        }
        return tracks
    }

    /// One element of `results`, read field by field so a bad field costs only that field.
    private static func readResult(_ json: inout CatalogJSON) throws(NotJSON) -> Track? {
        try json.beginObject()
        var fields = ResultFields()
        var readable = true
        var first = true
        while let rawKey = try json.nextKey(&first) {
            guard let field = ResultField(json, rawKey: rawKey, readable: &readable), !fields.has(field) else {
                try json.skipValue()
                continue
            }
            let byte = try json.peek()
            if field.isNumber, byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 {
                fields.set(field, try json.number())
            } else if !field.isNumber, byte == UInt8(ascii: "\"") {
                fields.set(field, try json.string())
            } else {
                fields.set(field, nil)
                try json.skipValue()
            }
        }
        return readable ? fields.track(json) : nil
    }
}
