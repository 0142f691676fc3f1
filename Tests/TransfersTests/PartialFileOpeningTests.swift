import Foundation
import NIOCore
import TestSupport
import Testing

@testable import TransferEngine

/// How a partial file is opened: made new for a download from the start, kept up to the offset
/// (and cut after it) when one is there already.
@Suite("Opening partial files")
struct PartialFileOpeningTests {
    @Test("a download from the start makes its file new")
    func makesNew() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("a.m4a.part").path
            let file = try PartialFile(path: path, offset: 0, flushes: false)
            #expect(file.created)
            try file.write(ByteBuffer(bytes: Array("abc".utf8)))
            file.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("abc".utf8))
        }
    }

    @Test("a file already there is written over from the offset, its bytes after it cut")
    func keepsWhatIsThere() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("a.m4a.part").path
            try Data("0123456789".utf8).write(to: URL(fileURLWithPath: path))
            let resumed = try PartialFile(path: path, offset: 4, flushes: false)
            #expect(!resumed.created)
            #expect(resumed.length == 4)
            try resumed.write(ByteBuffer(bytes: Array("xy".utf8)))
            resumed.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("0123xy".utf8))

            // From the start again (a restart): the file is there, so it is not new; it is cut to nothing.
            let restarted = try PartialFile(path: path, offset: 0, flushes: false)
            #expect(!restarted.created)
            restarted.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        }
    }

    @Test("a folder that is not there: a clear error, no file")
    func refused() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("missing/a.m4a.part").path
            #expect(throws: TransferError.self) { try PartialFile(path: path, offset: 0, flushes: false) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
