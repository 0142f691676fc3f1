import ArgumentParser

/// One command-line argument of track ids: `1001` or a comma-separated list, `1001,1019,1020`
/// (the iTunes lookup's own form).
struct TrackIDList: ExpressibleByArgument {
    /// The ids, in the order given.
    let values: [Int]

    init?(argument: String) {
        var values: [Int] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let id = Int(part), id > 0 else { return nil }
            values.append(id)
        }
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    /// A transform for `@Argument(transform:)`, saying what a list of ids looks like when it is not one.
    static func parse(_ text: String) throws -> TrackIDList {
        guard let list = TrackIDList(argument: text) else {
            throw NumberIn(description: "track ids are positive whole numbers, with spaces or commas between them")
        }
        return list
    }
}
