import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionCore {
    /// Rebuilds the tasks a background session journaled, delivers what finished while no process
    /// ran, and sweeps files left by resume data never used.
    func recover(from engine: TransferSession) async {
        var outstanding = Set<Int>()
        var ended: [(Int, TransferSnapshot)] = []
        var highest = 0
        for snapshot in await engine.transfers() {
            guard let tag = TaskTag(snapshot.tag), snapshot.state != .cancelled else { continue }
            if snapshot.state == .completed, !FileManager.default.fileExists(atPath: snapshot.destination.path) {
                // Delivered just before the process ended, before the journal forgot it.
                try? await engine.forget(snapshot.id)
                continue
            }
            var request = URLRequest(url: snapshot.url)
            for (name, value) in snapshot.requestHeaders ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
            var status = ResumableDownloadTask.Status()
            status.state = snapshot.state == .paused ? .suspended : .running
            status.suspendCount = snapshot.state == .paused ? 1 : 0
            status.received = snapshot.receivedBytes
            status.expected = snapshot.expectedBytes ?? -1
            status.taskDescription = tag.description
            let task = ResumableDownloadTask(
                identifier: tag.task, origin: .request(request), originalRequest: request, status: status,
                send: commandSender)
            tasks[tag.task] = task
            books[tag.task] = Book(
                transfer: snapshot.id, delivered: snapshot.receivedBytes, announcesResume: snapshot.receivedBytes > 0)
            byTransfer[snapshot.id] = tag.task
            highest = max(highest, tag.task)
            if snapshot.state != .paused { outstanding.insert(tag.task) }
            if snapshot.state == .completed || snapshot.state == .failed { ended.append((tag.task, snapshot)) }
        }
        session?.reserveIdentifiers(through: highest)
        outstandingAtRelaunch = outstanding.isEmpty ? nil : outstanding
        if !tasks.isEmpty {
            logger.info("took up journaled tasks", metadata: ["count": "\(tasks.count)", "outstanding": "\(outstanding.count)"])
        }
        for (number, snapshot) in ended {
            if snapshot.state == .completed {
                transferCompleted(number, location: snapshot.destination)
            } else {
                await transferFailed(number, snapshot.failure ?? TransferError(.network, "the download failed", permanent: false))
            }
        }
        let inUse = Set(await engine.transfers().flatMap { [$0.destination.path, $0.destination.path + ".part"] })
        let swept = folders.sweep(keeping: inUse, olderThan: configuration.resumeDataLifetime)
        if swept > 0 { logger.info("removed expired partial files", metadata: ["count": "\(swept)"]) }
        let abandoned = folders.sweepAbandonedJournals()
        if abandoned > 0 { logger.info("removed journals of ended processes", metadata: ["count": "\(abandoned)"]) }
    }
}
