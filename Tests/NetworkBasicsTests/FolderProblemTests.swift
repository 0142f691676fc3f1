import Foundation
import NetworkBasics
import SystemBasics
import Testing

/// Why a folder cannot be made, read off real files in a scratch folder.
@Suite("Why a folder cannot be made")
struct FolderProblemTests {
    private func withScratch(_ body: (URL) throws -> Void) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("folder-problem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try body(scratch)
    }

    @Test("a file in the way: the folder itself, or the first parent that exists; none where folders are")
    func fileInTheWay() throws {
        try withScratch { scratch in
            let file = scratch.appendingPathComponent("file")
            try Data("x".utf8).write(to: file)
            #expect(FolderProblem.fileInTheWay(of: file) == file.path)
            #expect(FolderProblem.fileInTheWay(of: file.appendingPathComponent("a/b")) == file.path)
            #expect(FolderProblem.fileInTheWay(of: scratch.appendingPathComponent("new/a/b")) == nil)
            #expect(FolderProblem.fileInTheWay(of: scratch) == nil)
        }
    }

    @Test("the reason: the file in the way, else the system's words for Foundation's error, not its error number")
    func reason() throws {
        try withScratch { scratch in
            let file = scratch.appendingPathComponent("file")
            try Data("x".utf8).write(to: file)
            let folder = file.appendingPathComponent("library")
            var thrown: (any Error)?
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch { thrown = error }
            let error = try #require(thrown)
            #expect(error.localizedDescription.contains("could not be completed"), "Foundation's own words")
            #expect(FolderProblem.reason(creating: folder, failedWith: error) == "\(file.path) is a file, not a folder")

            let denied = NSError(
                domain: NSCocoaErrorDomain, code: 513,
                userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES))])
            #expect(
                FolderProblem.reason(creating: scratch.appendingPathComponent("x"), failedWith: denied) == "Permission denied")
        }
    }
}
