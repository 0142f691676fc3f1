import Foundation
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `data-bench URL COUNT ROUNDS`: COUNT data tasks of `URL` one after another (the tutorial's
/// search, typed by a user), with Foundation's URLSession and with ResumableURLSession, in
/// alternating rounds. `data-bench upload URL BYTES COUNT ROUNDS`: COUNT uploads of BYTES from
/// memory (POST) instead. Prints one JSON line: each one's median seconds a round, and the bytes
/// of one answer (checked the same from both).
@main
struct DataBench {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let upload = arguments.first == "upload"
        if upload { arguments.removeFirst() }
        let numbers = arguments.dropFirst().compactMap { Int($0) }
        guard let url = arguments.first.flatMap(URL.init(string:)), numbers.count == arguments.count - 1,
            numbers.count == (upload ? 3 : 2)
        else {
            FileHandle.standardError.write(Data("usage: data-bench [upload URL BYTES | URL] COUNT ROUNDS\n".utf8))
            exit(2)
        }
        let (count, rounds) = (numbers[numbers.count - 2], numbers[numbers.count - 1])
        var request = URLRequest(url: url)
        let body = Data((0..<(upload ? numbers[0] : 0)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        if upload { request.httpMethod = "POST" }
        let foundation = URLSession(configuration: .default)
        let resumable = ResumableURLSession(configuration: .default)
        let viaFoundation = {
            upload ? try await foundation.upload(for: request, from: body).0 : try await foundation.data(for: request).0
        }
        let viaResumable = {
            upload ? try await resumable.upload(for: request, from: body).0 : try await resumable.data(for: request).0
        }
        var times: (foundation: [Double], resumable: [Double]) = ([], [])
        var sizes: Set<Int> = []
        // One of each first, to open their connections: rounds measure answers, not handshakes.
        sizes.insert(try await viaFoundation().count)
        sizes.insert(try await viaResumable().count)
        for _ in 0..<rounds {
            var started = ContinuousClock.now
            for _ in 0..<count { sizes.insert(try await viaFoundation().count) }
            times.foundation.append((ContinuousClock.now - started) / .seconds(1))
            started = ContinuousClock.now
            for _ in 0..<count { sizes.insert(try await viaResumable().count) }
            times.resumable.append((ContinuousClock.now - started) / .seconds(1))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let bytes = sizes.count == 1 ? sizes.first! : -1
        print(
            #"{"foundationSeconds":\#(median(times.foundation)),"resumableSeconds":\#(median(times.resumable)),"bytes":\#(bytes)}"#
        )
        resumable.invalidateAndCancel()
    }
}
