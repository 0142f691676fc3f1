import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

/// Bodies a transfer asked to receive with a content coding (its own `Accept-Encoding`, as a
/// URLSession download task sends): stored as the server sent them, so a resume's byte ranges count
/// the bytes the server counts, and decoded when the transfer finishes, before the file goes in
/// place. Only `gzip` (`x-gzip`) and `deflate` are decoded; other codings are delivered as they came.
enum ContentDecoding {
    /// The coding to undo for a transfer with these request fields whose body came with
    /// `contentEncoding`; `nil` when there is none to undo (the transfer did not ask for one).
    static func coding(request headers: [String: String], contentEncoding: String?) -> String? {
        let asked = headers.contains { name, value in
            name.lowercased() == "accept-encoding" && value.trimmingCharacters(in: .whitespaces).lowercased() != "identity"
        }
        guard asked, let value = contentEncoding?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        switch value {
        case "gzip", "x-gzip": return "gzip"
        case "deflate": return "deflate"
        default: return nil
        }
    }

    /// Decodes the file at `source` into a new file at `destination` and returns its length. A body that is not valid in its coding (damaged, cut short, bytes after its end)
    /// throws ``TransferError/Code/cannotDecodeContent``, for good, and leaves no `destination`.
    static func decode(_ source: String, coding: String, into destination: String, flushes: Bool) throws(TransferError)
        -> Int64
    {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw PartialFile.error("open", source) }
        defer { Foundation.close(input) }
        PartialFile.remove(destination)
        let output = try PartialFile(path: destination, offset: 0, flushes: flushes)
        let channel = EmbeddedChannel()
        do {
            try channel.pipeline.syncOperations.addHandler(NIOHTTPResponseDecompressor(limit: .none))
            var head = HTTPHeaders()
            head.add(name: "Content-Encoding", value: coding)
            try feed(channel, .head(HTTPResponseHead(version: .http1_1, status: .ok, headers: head)), to: output)
            var chunk = channel.allocator.buffer(capacity: 1 << 16)
            while true {
                chunk.clear()
                let count = try chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: 1 << 16) { bytes in
                    let count = read(input, bytes.baseAddress, bytes.count)
                    guard count >= 0 else { throw PartialFile.error("read", source) }
                    return count
                }
                if count == 0 { break }
                try feed(channel, .body(chunk), to: output)
            }
            try feed(channel, .end(nil), to: output)
            _ = try? channel.finish()
            output.close()
            return output.length
        } catch {
            _ = try? channel.finish()
            output.close()
            PartialFile.remove(destination)
            if let error = error as? TransferError, error.code != .cannotDecodeContent { throw error }
            throw TransferError(
                .cannotDecodeContent, "the body is not valid \(coding) (Content-Encoding: \(coding)): \(error)",
                permanent: true)
        }
    }

    /// Passes one part through the decoder and appends what comes out to `output`.
    private static func feed(_ channel: EmbeddedChannel, _ part: HTTPClientResponsePart, to output: PartialFile) throws {
        try channel.writeInbound(part)
        while let decoded = try channel.readInbound(as: HTTPClientResponsePart.self) {
            if case .body(let bytes) = decoded { try output.write(bytes) }
        }
    }
}
