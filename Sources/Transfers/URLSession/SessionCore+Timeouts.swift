import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download task's two clocks: the configuration's `timeoutIntervalForResource` (the whole
/// download) and the request's own `timeoutInterval` (the longest it may hear nothing).
extension SessionCore {
    /// Fails the task with `timedOut` (and resume data) once what is left of
    /// ``ResumableURLSessionConfiguration/timeoutIntervalForResource`` (`left`) has passed.
    func deadline(for task: ResumableDownloadTask, after left: Duration) -> Task<Void, Never> {
        let number = task.taskIdentifier
        return Task { [weak self] in
            guard (try? await Task.sleep(for: max(left, .zero))) != nil else { return }
            await self?.resourceTimedOut(number)
        }
    }

    func resourceTimedOut(_ number: Int) async {
        let message = "the download took longer than \(configuration.timeoutIntervalForResource) s (timeoutIntervalForResource)"
        await timedOut(number, message)
    }

    /// Ends a task with `.timedOut`, its bytes kept as resume data.
    func timedOut(_ number: Int, _ message: String) async {
        guard let task = tasks[number], let book = markEnding(number) else { return }
        var data: Data?
        if let id = book.transfer { data = await detach(id) }
        complete(number, error: URLError.make(.timedOut, message, url: task.url, resumeData: data))
    }

    /// Watches a task whose request set its own `timeoutInterval` (`limit`): when the engine has
    /// told nothing of it for that long (no response, no bytes; a retry's wait counts as silence),
    /// the task fails with `.timedOut` and resume data, as Apple's does.
    func idleWatch(for number: Int, limit: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            var wait = limit
            while (try? await Task.sleep(for: max(wait, .milliseconds(1)))) != nil {
                guard let self, let next = await self.quietLeft(number, limit: limit) else { return }
                wait = next
            }
        }
    }

    /// How long the task may still stay quiet; `nil` when it has ended, or has just timed out.
    func quietLeft(_ number: Int, limit: Duration) async -> Duration? {
        guard let book = books[number], !book.finished else { return nil }
        let quiet = ContinuousClock.now - book.lastHeard
        if quiet < limit { return limit - quiet }
        // Bytes may have arrived that the events have not told yet: they count as heard.
        var arrived: Int64?
        if let id = book.transfer { arrived = await arrivedBytes(id) }
        guard var current = books[number], !current.finished else { return nil }
        if let arrived, arrived > current.heardBytes {
            (current.heardBytes, current.lastHeard) = (arrived, .now)
            books[number] = current
        }
        let still = ContinuousClock.now - current.lastHeard
        if still < limit { return limit - still }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        await timedOut(number, "no answer or data for \(seconds) s (the request's timeoutInterval)")
        return nil
    }

    /// The bytes of a transfer that have arrived: the engine's count, or what its partial file
    /// holds, whichever is more (the file's writes do not wait for the engine's events).
    func arrivedBytes(_ id: TransferID) async -> Int64? {
        guard let snapshot = await engine?.transfer(id) else { return nil }
        let onDisk = snapshot.partialFilePath.flatMap {
            (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? NSNumber)?.int64Value
        }
        return max(snapshot.receivedBytes, onDisk ?? 0)
    }
}
