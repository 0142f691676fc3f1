import Foundation

/// Tests only (`HALFTUNES_TEST_AGENT_BARRIER=FOLDER`): an agent starting notes its process in
/// `FOLDER` and waits, up to ten seconds, until another has too, so that two agents provably
/// reach the home's lock together; the test then reads who came.
enum StartBarrier {
    static func waitIfAsked(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let folder = environment["HALFTUNES_TEST_AGENT_BARRIER"] else { return }
        _ = FileManager.default.createFile(atPath: "\(folder)/\(getpid())", contents: nil)
        let deadline = Date() + 10
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: folder))?.count ?? 0) < 2 {
            usleep(5_000)
        }
    }
}
