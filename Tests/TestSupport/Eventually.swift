import Foundation

/// Whether `condition` came to hold within `limit`, looked at every 20 ms: for a state another
/// process reaches (files on disk, say) that sends no event this process could wait for.
public func eventually(within limit: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
