import Foundation
import NIOCore
import TestSupport
import Testing

@testable import TransferEngine

/// A partial file's write-back requests run on a file-work thread; a write-back error one of them
/// meets (here handed over as such: no device on this machine fails on demand) fails what comes
/// after and leaves nothing to resume from.
@Suite("Write-back requests handed over")
struct WritebackHandOffTests {
    @Test("a failed wait is kept: it fails the settle each time, the finish, and cuts the file at close")
    func failureKept() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("song.m4a.part").path
            let destination = folder.appendingPathComponent("song.m4a").path
            let file = try PartialFile(path: path, offset: 0, flushes: true)
            try file.write(ByteBuffer(repeating: 1, count: 100_000))
            file.handOff.start { EIO }
            for _ in 0..<2 {
                #expect {
                    try file.settleWriteback()
                } throws: { error in
                    (error as? TransferError)?.message.contains("the partial download is discarded") == true
                }
            }
            #expect(throws: TransferError.self) { try file.finish(at: destination) }
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(PartialFile.length(at: path) == 100_000)
            file.close()
            #expect(PartialFile.length(at: path) == 0, "the partial file kept bytes that may not be on the device")
        }
    }

    @Test("requests run off the caller's thread, and a settle waits for them")
    func settleWaits() async throws {
        let handOff = WritebackHandOff()
        let released = DispatchSemaphore(value: 0)
        let ran = RequestLog<Bool>()
        // Run where they were handed over, the requests would wait out their 10 s and say so.
        handOff.start {
            ran.append(released.wait(timeout: .now() + 10) == .success)
            return 0
        }
        released.signal()
        #expect(handOff.settle() == nil)
        #expect(ran.all == [true], "the requests ran before start returned")
    }
}
