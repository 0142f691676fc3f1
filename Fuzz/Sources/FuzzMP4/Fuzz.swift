import FuzzSupport

/// libFuzzer entry, structure-aware: the bytes choose an MP4 box tree — `ftyp`, `moov` with
/// `mvhd` (version 0 or 1), `trak/mdia/minf/stbl` with `stco` or `co64` tables of edge values,
/// `udta/meta/ilst` with or without `hdlr`, `free`, `mdat`, `moof` — and how each box states its
/// size (exact, 0 for "to the end", 1 with a 64-bit size, or wrong), then ``MediaChecks`` reads it.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var recipe = Recipe(start, count)
    var file = box("ftyp", .code("M4A ") + .bigEndian(0, width: 4) + .code("isom"), &recipe, form: 0)
    for _ in 0..<(1 + recipe.choice(5)) {
        switch recipe.choice(7) {
        case 0, 1, 2: file += box("moov", moov(&recipe), &recipe)
        case 3: file += box("mdat", recipe.bytes(recipe.choice(64)), &recipe)
        case 4: file += box(recipe.choice(2) == 0 ? "free" : "skip", [UInt8](repeating: 0, count: recipe.choice(200)), &recipe)
        case 5: file += box("moof", [], &recipe)
        default: file += box(String(decoding: recipe.bytes(4).map { $0 % 26 + 97 }, as: UTF8.self), recipe.bytes(8), &recipe)
        }
    }
    MediaChecks.check(file)
    return 0
}

/// A box of `type` around `content`, its size written as the recipe chooses (or as `form` says).
private func box(_ type: String, _ content: [UInt8], _ recipe: inout Recipe, form: Int? = nil) -> [UInt8] {
    let exact = UInt64(content.count + 8)
    switch form ?? recipe.choice(10) {
    case 7: return .bigEndian(1, width: 4) + .code(type) + .bigEndian(exact + 8, width: 8) + content
    case 8: return .bigEndian(0, width: 4) + .code(type) + content
    case 9:
        if recipe.choice(2) == 0 {
            return .bigEndian(1, width: 4) + .code(type) + .bigEndian(recipe.edgy64(), width: 8) + content
        }
        return .bigEndian(UInt64(recipe.edgy32()), width: 4) + .code(type) + content
    default: return .bigEndian(exact, width: 4) + .code(type) + content
    }
}

private func moov(_ recipe: inout Recipe) -> [UInt8] {
    var content: [UInt8] = []
    for _ in 0..<(1 + recipe.choice(4)) {
        switch recipe.choice(4) {
        case 0: content += box("mvhd", mvhd(&recipe), &recipe)
        case 1: content += box("trak", path(["mdia", "minf", "stbl"], &recipe), &recipe)
        case 2: content += box("udta", udta(&recipe), &recipe)
        default: content += box("meta", meta(&recipe), &recipe)
        }
    }
    return content
}

private func mvhd(_ recipe: inout Recipe) -> [UInt8] {
    if recipe.choice(2) == 0 {
        return [0, 0, 0, 0] + .bigEndian(0, width: 8) + .bigEndian(UInt64(recipe.edgy32()), width: 4)
            + .bigEndian(UInt64(recipe.edgy32()), width: 4) + [UInt8](repeating: 0, count: 80)
    }
    return [1, 0, 0, 0] + .bigEndian(0, width: 16) + .bigEndian(UInt64(recipe.edgy32()), width: 4)
        + .bigEndian(recipe.edgy64(), width: 8) + [UInt8](repeating: 0, count: 80)
}

/// The boxes on the way to a chunk-offset table, a level now and then left out or doubled.
private func path(_ levels: [String], _ recipe: inout Recipe) -> [UInt8] {
    guard let level = levels.first else { return table(&recipe) }
    let inner = path(Array(levels.dropFirst()), &recipe)
    switch recipe.choice(8) {
    case 0: return inner
    case 1: return box(level, inner, &recipe) + box(level, table(&recipe), &recipe)
    default: return box(level, inner, &recipe)
    }
}

private func table(_ recipe: inout Recipe) -> [UInt8] {
    let wide = recipe.choice(2) == 0
    let entries = recipe.choice(6)
    let stated = recipe.choice(4) == 0 ? UInt64(recipe.edgy32()) : UInt64(entries)
    var content: [UInt8] = [0, 0, 0, 0] + .bigEndian(stated, width: 4)
    for _ in 0..<entries {
        content += wide ? .bigEndian(recipe.edgy64(), width: 8) : .bigEndian(UInt64(recipe.edgy32()), width: 4)
    }
    return box(wide ? "co64" : "stco", content, &recipe)
}

private func udta(_ recipe: inout Recipe) -> [UInt8] {
    var content: [UInt8] = []
    for _ in 0..<recipe.choice(3) {
        content +=
            recipe.choice(3) == 0 ? box("©nam", recipe.bytes(recipe.choice(16)), &recipe) : box("meta", meta(&recipe), &recipe)
    }
    return content
}

/// A `meta` box: a full box's version and flags or (as QuickTime writes it) none, a handler or
/// none, an item list of a few items.
private func meta(_ recipe: inout Recipe) -> [UInt8] {
    var content: [UInt8] = recipe.choice(4) == 0 ? [] : [0, 0, 0, 0]
    if recipe.choice(3) != 0 {
        content += box(
            "hdlr", [0, 0, 0, 0] + .bigEndian(0, width: 4) + .code("mdir") + .code("appl") + [0, 0, 0, 0, 0, 0, 0, 0, 0], &recipe)
    }
    var items: [UInt8] = []
    for _ in 0..<recipe.choice(4) {
        let name = ["©nam", "©ART", "covr", "trkn", "----", "aART"][recipe.choice(6)]
        let data = box(
            "data", .bigEndian(UInt64(recipe.choice(30)), width: 4) + [0, 0, 0, 0] + recipe.bytes(recipe.choice(24)), &recipe)
        items += box(name, data, &recipe)
    }
    if recipe.choice(4) != 0 { content += box("ilst", items, &recipe) }
    if recipe.choice(4) == 0 { content += box("free", [0, 0, 0, 0], &recipe) }
    return content
}
