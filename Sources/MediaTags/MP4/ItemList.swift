/// The items of an iTunes-style `ilst`: each a box named by its tag, holding one `data` box.
enum ItemList {
    /// The well-known type codes of a `data` box.
    enum DataType: UInt32 {
        case implicit = 0
        case utf8 = 1
        case jpeg = 13
        case png = 14
    }

    /// The item types HalfTunes writes, each with the types it replaces.
    static func items(for tags: TrackTags) -> [(replaces: [[UInt8]], item: [UInt8])] {
        var items: [(replaces: [[UInt8]], item: [UInt8])] = []
        func text(_ code: String, _ value: String?, alsoReplacing others: [String] = []) {
            guard let value else { return }
            let type = [UInt8].fourCC(code)
            items.append(([type] + others.map { [UInt8].fourCC($0) }, item(type, .utf8, Array(value.utf8))))
        }
        text("\u{A9}nam", tags.title)
        text("\u{A9}ART", tags.artist)
        text("\u{A9}alb", tags.album)
        // The numeric `gnre` (an ID3v1 genre index) would contradict the text: it goes.
        text("\u{A9}gen", tags.genre, alsoReplacing: ["gnre"])
        text("\u{A9}day", tags.date)
        if let number = tags.trackNumber {
            var value: [UInt8] = [0, 0]
            value.appendUInt16BE(UInt16(clamping: number.number))
            value.appendUInt16BE(UInt16(clamping: number.count ?? 0))
            value += [0, 0]
            items.append(([.fourCC("trkn")], item(.fourCC("trkn"), .implicit, value)))
        }
        if let cover = tags.cover {
            items.append(([.fourCC("covr")], item(.fourCC("covr"), cover.kind == .jpeg ? .jpeg : .png, cover.bytes)))
        }
        return items
    }

    /// `type { data { version 0, flags = type code, locale 0, value } }`.
    static func item(_ type: [UInt8], _ dataType: DataType, _ value: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(value.count + 8)
        data.appendUInt32BE(dataType.rawValue)
        data.appendUInt32BE(0)
        data += value
        return Box.make(type, Box.make(.fourCC("data"), data))
    }

    /// The `hdlr` a `meta` box needs for its `ilst` to be read: handler `mdir`, maker `appl`.
    static let metadataHandler: [UInt8] = {
        var content: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]  // version, flags, pre-defined
        content += [UInt8].fourCC("mdir") + [UInt8].fourCC("appl") + [UInt8](repeating: 0, count: 8)
        content.append(0)  // an empty name
        return Box.make(.fourCC("hdlr"), content)
    }()
}
