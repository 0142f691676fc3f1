import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionCore {
    /// Turns an engine event into task updates and delegate calls.
    func handle(_ event: TransferEvent) async {
        guard !parksEarly(event), let number = byTransfer[event.transferID], let task = tasks[number], var book = books[number],
            !book.finished
        else { return }
        switch event {
        case .responded: book.lastHeard = .now
        case .progress(_, let received, _): (book.lastHeard, book.heardBytes) = (.now, max(book.heardBytes, received))
        default: break
        }
        books[number] = book
        switch event {
        case .responded(_, let head):
            let response = task.url.flatMap {
                HTTPURLResponse(url: $0, statusCode: head.status, httpVersion: "HTTP/1.1", headerFields: head.headers)
            }
            task.status.withLock { $0.response = response }
            guard let offset = head.bodyOffset else { return }
            if let total = head.expectedTotal { setExpected(task, total) }
            if book.announcesResume {
                book.announcesResume = false
                book.delivered = offset
                books[number] = book
                task.status.withLock { $0.received = offset }
                task.progress.completedUnitCount = offset
                let expected = head.expectedTotal ?? -1
                deliver(to: task) { delegate, session in
                    delegate?.urlSession(session, downloadTask: task, didResumeAtOffset: offset, expectedTotalBytes: expected)
                }
            }
        case .progress(_, let received, let expected):
            if let expected { setExpected(task, expected) }
            guard received > book.delivered else { return }
            let written = received - book.delivered
            book.delivered = received
            books[number] = book
            task.status.withLock { $0.received = received }
            task.progress.completedUnitCount = received
            let total = task.countOfBytesExpectedToReceive
            deliver(to: task) { delegate, session in
                delegate?.urlSession(
                    session, downloadTask: task, didWriteData: written, totalBytesWritten: received,
                    totalBytesExpectedToWrite: total)
            }
        case .completed(_, let location):
            transferCompleted(number, location: location)
        case .failed(_, let error):
            await transferFailed(number, error)
        case .stateChanged, .retrying:
            // URLSession's download API has no call for either: a task stays running while the
            // engine waits to retry (the delegate hears of the attempt's end only if it fails).
            break
        }
    }

    private func setExpected(_ task: ResumableDownloadTask, _ expected: Int64) {
        task.status.withLock { $0.expected = expected }
        task.progress.totalUnitCount = expected
    }

    /// Hands the finished file to the delegate (or the completion handler), removes it once that
    /// returned, then forgets the transfer: a crash before then delivers it again at relaunch.
    func transferCompleted(_ number: Int, location: URL) {
        guard let task = tasks[number], books[number]?.transfer != nil, let book = markEnding(number),
            let id = book.transfer
        else { return }
        let engine = engine
        guard FileManager.default.fileExists(atPath: location.path) else {
            // Delivered before a crash that came before the journal heard of it.
            Task { try? await engine?.forget(id) }
            return finish(number)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size] as? Int64) ?? book.delivered
        if book.delivered < size {
            // The last bytes arrived unreported (a 416 for a file already whole, a relaunch after the end).
            let written = size - book.delivered
            deliver(to: task) { delegate, session in
                delegate?.urlSession(
                    session, downloadTask: task, didWriteData: written, totalBytesWritten: size, totalBytesExpectedToWrite: size)
            }
        }
        let response = task.status.withLock { status -> URLResponse? in
            status.received = size
            status.expected = size
            status.state = .completed
            if status.response == nil, let url = task.url {
                status.response = HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "\(size)"])
            }
            return status.response
        }
        task.progress.totalUnitCount = size
        task.progress.completedUnitCount = size
        byTransfer[id] = nil
        // A default session's engine has dropped the transfer already (it keeps no history).
        let keptByEngine = !folders.isTemporary
        deliver(to: task) { delegate, session in
            if let handler = task.completion {
                handler(location, response, nil)
            } else {
                delegate?.urlSession(session, downloadTask: task, didFinishDownloadingTo: location)
            }
            // Usually moved away by now; unlink, not FileManager, so that costs no thrown error.
            unlink(location.path)
            if task.completion == nil { delegate?.urlSession(session, task: task, didCompleteWithError: nil) }
            if keptByEngine { Task { try? await engine?.forget(id) } }
        }
        finish(number)
    }

    /// A transfer failed for good (a permanent error) or after its retries (resumable: the error
    /// carries resume data).
    func transferFailed(_ number: Int, _ error: TransferError) async {
        guard let task = tasks[number], let book = markEnding(number) else { return }
        var resumeData: Data?
        if let id = book.transfer {
            if error.isPermanent {
                byTransfer[id] = nil
                try? await engine?.forget(id)
            } else {
                resumeData = await detach(id)
            }
        }
        complete(number, error: URLError.download(error, url: task.url, resumeData: resumeData))
    }

    /// Marks a task's end as being delivered (later engine events are ignored) and stops its
    /// timers; `nil` when it has no book or its end is already on its way.
    func markEnding(_ number: Int) -> Book? {
        guard var book = books[number], !book.finished else { return nil }
        book.finished = true
        book.stopTimers()
        books[number] = book
        return book
    }

    /// Ends a task with an error.
    func complete(_ number: Int, error: URLError) {
        guard let task = tasks[number] else { return }
        if var book = books[number] {
            book.finished = true
            book.stopTimers()
            books[number] = book
        }
        let response = task.status.withLock { status -> URLResponse? in
            status.state = .completed
            status.error = error
            return status.response
        }
        deliver(to: task) { delegate, session in
            if let handler = task.completion {
                handler(nil, response, error)
            } else {
                delegate?.urlSession(session, task: task, didCompleteWithError: error)
            }
        }
        finish(number)
    }

    /// Forgets a task that has ended; tells a relaunched background session's delegate when the
    /// last outstanding task has, and invalidates when that was asked.
    func finish(_ number: Int) {
        tasks[number] = nil
        books[number] = nil
        downloadCookies.set(number, nil)
        if var outstanding = outstandingAtRelaunch, outstanding.remove(number) != nil {
            outstandingAtRelaunch = outstanding.isEmpty ? nil : outstanding
            if outstanding.isEmpty {
                deliverToSession { delegate, session in delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session) }
            }
        }
        if invalidating { Task { await self.finalizeIfDone() } }
    }

    /// Runs `body` with the download delegate (the task's own when it has one) on the delegate
    /// queue, after everything delivered before it and never beside it.
    func deliver(
        to task: ResumableDownloadTask? = nil,
        _ body: @escaping @Sendable ((any ResumableDownloadDelegate)?, ResumableURLSession) -> Void
    ) {
        deliverToSession { delegate, session in
            body((task?.delegate ?? delegate) as? any ResumableDownloadDelegate, session)
        }
    }

    /// Runs `body` with the session's delegate on the delegate queue, in order with every other call.
    func deliverToSession(_ body: @escaping @Sendable ((any ResumableURLSessionDelegate)?, ResumableURLSession) -> Void) {
        guard let session else { return }
        let box = delegateBox
        line.add { body(box.delegate, session) }
    }
}
