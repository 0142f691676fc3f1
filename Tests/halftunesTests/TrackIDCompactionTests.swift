import HalfTunesKit
import HalfTunesTerminal
import Testing

@testable import halftunes

@Suite("Track ids joined before parsing (pure)")
struct TrackIDCompactionTests {
    /// The ids `download` gets from `arguments`, parsed as the command line parses them.
    private func parsedIDs(_ arguments: [String]) throws -> [Int] {
        let command = try #require(try HalfTunes.parseAsRoot(arguments) as? DownloadCommand)
        return command.trackIDs
    }

    @Test(
        "the ids, the options and their values are what they were",
        arguments: [
            (["download", "1", "2", "3"], ["download", "1,2,3"]),
            (["download", "--home", "7", "1001", "1019"], ["download", "--home", "7", "1001,1019"]),
            (["download", "--json", "1", "2", "3"], ["download", "--json", "1", "2,3"]),
            (["download", "--durability=process-crash", "1", "2"], ["download", "--durability=process-crash", "1,2"]),
            (["download", "1", "--json", "2", "3", "--", "4", "5"], ["download", "1", "--json", "2", "3", "--", "4,5"]),
            (["download", "1,2", "3", "4"], ["download", "1,2", "3,4"]),
            (["tag", "1", "2"], ["tag", "1", "2"]),
        ])
    func joined(arguments: [String], expected: [String]) throws {
        let compacted = TrackIDCompaction.compact(arguments)
        #expect(compacted == expected)
        guard arguments.first == "download" else { return }
        let ids = arguments.flatMap { $0.split(separator: ",").compactMap { Int($0) } }.filter { $0 != 7 }
        #expect(try parsedIDs(compacted) == ids)
        #expect(try parsedIDs(arguments) == ids)
    }

    @Test("2,500 ids become 25 arguments of 100, in order")
    func many() throws {
        let ids = (1...2500).map { 100_000 + $0 }
        let compacted = TrackIDCompaction.compact(["download"] + ids.map(String.init))
        #expect(compacted.count == 26)
        #expect(compacted.dropFirst().allSatisfy { $0.split(separator: ",").count == 100 })
        #expect(try parsedIDs(compacted) == ids)
    }

    @Test("a list with a bad part is refused whole", arguments: ["1,x", "1,,2", ",", "1,2,"])
    func bad(argument: String) {
        #expect(TrackIDList(argument: argument) == nil)
        #expect(throws: (any Error).self) { try HalfTunes.parseAsRoot(["download", argument]) }
    }
}
