/// Writes tags into an MP4/M4A file: a new `moov/udta/meta/ilst`, every other box kept as it is,
/// the audio samples never touched.
///
/// When `moov` changes size and media data follows it, the data moves: a `free` box right after
/// `moov` absorbs the change when it can; otherwise every chunk offset (`stco`, `co64`) that
/// points past `moov` is moved by the same amount, so the audio still plays.
enum MP4Tagger {
    /// Containers are never nested deeper than this on the paths the writer walks.
    static let trackPath = ["trak", "mdia", "minf", "stbl"]

    static func tag(_ bytes: [UInt8], with tags: TrackTags) throws(MediaTagError) -> [UInt8] {
        let top = try Box.children(of: bytes, from: 0, to: bytes.count)
        if top.contains(where: { $0.is("moof") }) {
            throw MediaTagError(.unsupported, "a fragmented MP4 (moof boxes) is not tagged")
        }
        let moovs = top.filter { $0.is("moov") }
        guard let moov = moovs.first else { throw MediaTagError(.malformed, "the file has no moov box") }
        guard moovs.count == 1 else { throw MediaTagError(.malformed, "the file has \(moovs.count) moov boxes") }
        var newMoov = try rewrite(moov: moov, in: bytes, tags: tags)
        var delta = newMoov.count - moov.size

        // A free box right after moov takes up the change, when it can, so nothing moves.
        var after = moov.end
        var padding: [UInt8] = []
        if delta != 0, let next = top.first(where: { $0.start == moov.end }), next.is("free") || next.is("skip"),
            next.headerSize == 8, next.size - delta >= 8
        {
            padding = Box.make(.fourCC("free"), [UInt8](repeating: 0, count: next.size - delta - 8))
            after = next.end
            delta = 0
        }
        if delta != 0 { try moveChunkOffsets(in: &newMoov, pastOffset: moov.start, by: delta) }

        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + newMoov.count - moov.size)
        out += bytes[0..<moov.start]
        out += newMoov
        out += padding
        out += bytes[after...]
        return out
    }

    /// The moov box with its `udta/meta/ilst` rebuilt.
    private static func rewrite(moov: Box, in bytes: [UInt8], tags: TrackTags) throws(MediaTagError) -> [UInt8] {
        let children = try Box.children(of: bytes, from: moov.contentStart, to: moov.end)
        let udtaBox = children.first { $0.is("udta") }
        var udtaContent: [UInt8] = []
        var metaWritten = false
        if let udtaBox {
            for child in try Box.children(of: bytes, from: udtaBox.contentStart, to: udtaBox.end) {
                if child.is("meta"), !metaWritten {
                    udtaContent += try rewrite(meta: child, in: bytes, tags: tags)
                    metaWritten = true
                } else {
                    udtaContent += child.bytes(in: bytes)
                }
            }
        }
        if !metaWritten { udtaContent += try rewrite(meta: nil, in: bytes, tags: tags) }
        let udta = Box.make(.fourCC("udta"), udtaContent)

        var content: [UInt8] = []
        content.reserveCapacity(moov.size + udta.count)
        for child in children {
            if child == udtaBox {
                content += udta
            } else {
                content += child.bytes(in: bytes)
            }
        }
        if udtaBox == nil { content += udta }
        return Box.make(.fourCC("moov"), content)
    }

    /// A `meta` box (a full box: version and flags, then children) with a new `ilst`.
    private static func rewrite(meta: Box?, in bytes: [UInt8], tags: TrackTags) throws(MediaTagError) -> [UInt8] {
        var prefix: [UInt8] = [0, 0, 0, 0]
        var children: [Box] = []
        if let meta {
            // QuickTime's own meta has no version and flags: its first child starts at once.
            let plain =
                meta.end - meta.contentStart >= 8
                && bytes[meta.contentStart + 4..<meta.contentStart + 8].elementsEqual([UInt8].fourCC("hdlr"))
            let first = plain ? meta.contentStart : meta.contentStart + 4
            guard first <= meta.end else { throw MediaTagError(.malformed, "the meta box is cut short") }
            prefix = plain ? [] : Array(bytes[meta.contentStart..<first])
            children = try Box.children(of: bytes, from: first, to: meta.end)
        }
        let items = ItemList.items(for: tags)
        let replaced = Set(items.flatMap(\.replaces))
        var ilst: [UInt8] = []
        if let old = children.first(where: { $0.is("ilst") }) {
            for item in try Box.children(of: bytes, from: old.contentStart, to: old.end) where !replaced.contains(item.type) {
                ilst += item.bytes(in: bytes)
            }
        }
        for item in items { ilst += item.item }

        var content = prefix
        if !children.contains(where: { $0.is("hdlr") }) { content += ItemList.metadataHandler }
        var ilstWritten = false
        for child in children {
            if child.is("ilst") {
                if !ilstWritten { content += Box.make(.fourCC("ilst"), ilst) }
                ilstWritten = true
            } else {
                content += child.bytes(in: bytes)
            }
        }
        if !ilstWritten { content += Box.make(.fourCC("ilst"), ilst) }
        return Box.make(.fourCC("meta"), content)
    }

    /// Moves every chunk offset at or past `offset` by `delta`, in place in `moov`'s bytes.
    private static func moveChunkOffsets(in moov: inout [UInt8], pastOffset offset: Int, by delta: Int) throws(MediaTagError) {
        let top = try Box.children(of: moov, from: 0, to: moov.count)
        guard let root = top.first else { return }
        var tables: [Box] = []
        func walk(_ parent: Box, depth: Int) throws(MediaTagError) {
            for child in try Box.children(of: moov, from: parent.contentStart, to: parent.end) {
                if depth < trackPath.count, child.is(trackPath[depth]) {
                    try walk(child, depth: depth + 1)
                } else if depth == trackPath.count, child.is("stco") || child.is("co64") {
                    tables.append(child)
                }
            }
        }
        try walk(root, depth: 0)
        for table in tables {
            let wide = table.is("co64")
            let width = wide ? 8 : 4
            guard table.end - table.contentStart >= 8 else {
                throw MediaTagError(.malformed, "a chunk offset table is cut short")
            }
            let count = Int(moov.uint32BE(at: table.contentStart + 4))
            let first = table.contentStart + 8
            guard count <= (table.end - first) / width else {
                throw MediaTagError(.malformed, "a chunk offset table claims \(count) entries, more than it holds")
            }
            for index in 0..<count {
                let at = first + index * width
                let old = wide ? Int64(bitPattern: moov.uint64BE(at: at)) : Int64(moov.uint32BE(at: at))
                // An offset no file can hold (past Int64, or carried past it when moved) is no chunk of this one.
                guard old >= 0 else { throw Self.offsetPastAnyFile(old) }
                guard old >= Int64(offset) else { continue }
                let (new, overflow) = old.addingReportingOverflow(Int64(delta))
                if wide {
                    guard !overflow, new >= 0 else { throw Self.offsetPastAnyFile(old) }
                    moov.setUInt64BE(UInt64(bitPattern: new), at: at)
                } else {
                    guard new >= 0, new <= Int64(UInt32.max) else {
                        throw MediaTagError(.unsupported, "moving the audio would put a chunk past 4 GiB")
                    }
                    moov.setUInt32BE(UInt32(new), at: at)
                }
            }
        }
    }

    private static func offsetPastAnyFile(_ offset: Int64) -> MediaTagError {
        MediaTagError(.malformed, "a chunk offset table names offset \(UInt64(bitPattern: offset)), past any file")
    }
}
