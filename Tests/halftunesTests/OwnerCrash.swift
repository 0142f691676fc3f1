import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A crash of everything that owns `home`'s downloads, as a power cut or the OOM killer would
/// leave it: `command` and the agent it talks to, both by SIGKILL. The next command starts a new
/// agent, which resumes from the journal and the bytes on disk.
func crashOwners(_ command: ChildProcess, home: URL) async -> ChildProcess.Result {
    command.signal(SIGKILL)
    await TestAgents.stop(homesIn: home, signal: SIGKILL)
    return await command.wait()
}
