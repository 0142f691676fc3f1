import FuzzSupport

/// libFuzzer entry, structure-aware: the bytes choose a WAV file — a `RIFF` size exact or wrong,
/// `fmt `, `data`, `LIST`/`INFO`, `id3 ` and unknown chunks in any order, each size exact, odd
/// (with or without its pad byte) or an edge value — then ``MediaChecks`` reads it.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var recipe = Recipe(start, count)
    var chunks: [UInt8] = []
    for _ in 0..<(1 + recipe.choice(6)) {
        switch recipe.choice(6) {
        case 0, 1:
            chunks += chunk(
                "fmt ",
                [1, 0, 2, 0] + .littleEndian(44100, width: 4) + .littleEndian(UInt64(recipe.edgy32()), width: 4)
                    + [4, 0, 16, 0], &recipe)
        case 2, 3: chunks += chunk("data", recipe.bytes(recipe.choice(40)), &recipe)
        case 4:
            var info: [UInt8] = .code("INFO")
            for _ in 0..<recipe.choice(4) {
                info += chunk(["INAM", "IART", "IPRD", "ITRK"][recipe.choice(4)], recipe.bytes(recipe.choice(9)), &recipe)
            }
            chunks += chunk(recipe.choice(3) == 0 ? "LIST" : "list", info, &recipe)
        default: chunks += chunk(recipe.choice(2) == 0 ? "id3 " : "junk", recipe.bytes(recipe.choice(12)), &recipe)
        }
    }
    let size = recipe.choice(4) == 0 ? UInt64(recipe.edgy32()) : UInt64(chunks.count + 4)
    MediaChecks.check(.code("RIFF") + .littleEndian(size, width: 4) + .code("WAVE") + chunks)
    return 0
}

/// A chunk of `id` around `content`: its size exact (padded to even, or not) or an edge value.
private func chunk(_ id: String, _ content: [UInt8], _ recipe: inout Recipe) -> [UInt8] {
    switch recipe.choice(6) {
    case 0: return .code(id) + .littleEndian(UInt64(recipe.edgy32()), width: 4) + content
    case 1: return .code(id) + .littleEndian(UInt64(content.count), width: 4) + content
    default: return .code(id) + .littleEndian(UInt64(content.count), width: 4) + content + (content.count % 2 == 1 ? [0] : [])
    }
}
