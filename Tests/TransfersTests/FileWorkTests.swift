import Testing

@testable import TransferEngine

/// The threads that flush and rename finished files: what runs there comes back to the caller,
/// value or error, without an event loop in between.
@Suite("File work")
struct FileWorkTests {
    @Test("a body's value comes back, from a thread outside Swift's task pool")
    func value() async throws {
        // On the cooperative pool a body would run inside the calling task; a file-work thread
        // runs it outside any task, so that a blocking flush holds no task thread.
        let insideATask = try await FileWork.run { withUnsafeCurrentTask { $0 != nil } }
        #expect(!insideATask)
        #expect(try await FileWork.run { 6 * 7 } == 42)
    }

    @Test("a body's error comes back as it was thrown")
    func error() async {
        do {
            _ = try await FileWork.run { () throws(TransferError) -> Int in
                throw TransferError(.fileSystem, "cannot rename /a to /b", permanent: false)
            }
            Issue.record("the error was lost")
        } catch {
            #expect(error.code == .fileSystem)
            #expect(error.message == "cannot rename /a to /b")
        }
    }

    @Test("many at once all come back (more than the pool has threads)")
    func many() async throws {
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 1...(FileWork.threadCount * 4) { group.addTask { try await FileWork.run { n } } }
            return try await group.reduce(0, +)
        }
        let count = FileWork.threadCount * 4
        #expect(results == count * (count + 1) / 2)
    }
}
