import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The serial heart of a ``ResumableURLSession``: it owns the engine (``TransferSession``), maps
/// its transfers to tasks, carries out the public methods in the order they were called, and
/// turns engine events into delegate calls, enqueued in order on the delegate queue.
actor SessionCore {
    /// What the core knows about a task beyond what the task shows.
    struct Book {
        var transfer: TransferID?
        /// The largest byte count told to the delegate: progress never goes back.
        var delivered: Int64 = 0
        /// Whether the next response that writes a body is announced with `didResumeAtOffset`.
        var announcesResume = false
        /// Set once the task's end is being delivered; later engine events are ignored.
        var finished = false
        var deadline: Task<Void, Never>?
        /// When the resource timeout ends, while it runs; what is left of it, while suspended.
        var deadlineEnds: ContinuousClock.Instant?
        var timeLeft: Duration?
        /// The request's own `timeoutInterval`, when it set one: the longest the task may hear
        /// nothing (no response, no bytes) before it fails with `.timedOut` and resume data.
        var idleLimit: Duration?
        /// When the engine last told of the task's response or bytes (or it was resumed).
        var lastHeard = ContinuousClock.now
        /// The most bytes known to have arrived when `lastHeard` was set: events can lag behind
        /// the bytes in a busy process, so the idle check also looks at the engine and the disk.
        var heardBytes: Int64 = 0
        var idleWatch: Task<Void, Never>?
        /// The answers the task gave to authentication challenges.
        let answered = ChallengeCounts()

        /// Stops the timers (the task ends or is suspended).
        mutating func stopTimers() {
            deadline?.cancel()
            idleWatch?.cancel()
            (deadline, idleWatch) = (nil, nil)
        }
    }

    /// What the engine's tag of a transfer holds for the task it belongs to.
    struct TaskTag: Codable {
        var task: Int
        var description: String?

        init(task: Int, description: String?) {
            self.task = task
            self.description = description
        }

        init?(_ tag: String?) {
            guard let tag, let value = try? JSONDecoder().decode(TaskTag.self, from: Data(tag.utf8)) else { return nil }
            self = value
        }

        var encoded: String { (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
    }

    let configuration: ResumableURLSessionConfiguration
    let folders: SessionFolders
    let delegateBox: DelegateBox
    let queue: OperationQueue
    /// The delegate calls, one at a time in order on ``queue``.
    let line: DeliveryLine
    let logger: Logger
    /// The cookie rules of the download tasks (each request's own, as a data task's).
    let downloadCookies: DownloadCookies
    /// Sends a command through the session's ordered stream (for tasks the core makes itself).
    let commandSender: @Sendable (SessionCommand) -> Void

    var session: ResumableURLSession?
    var engine: TransferSession?
    /// Why the session could not open, if it could not.
    var openFailure: URLError?
    var tasks: [Int: ResumableDownloadTask] = [:]
    var dataTasks: [Int: ResumableDataTask] = [:]
    /// The requests of data tasks under way.
    var dataRuns: [Int: Task<Void, Never>] = [:]
    var books: [Int: Book] = [:]
    var byTransfer: [TransferID: Int] = [:]
    /// Tasks whose start awaits the engine, and the events their transfers sent meanwhile.
    var starting: Set<Int> = []
    var early: [TransferID: [TransferEvent]] = [:]
    /// Tasks a relaunched background session found with events to deliver; `nil` once delivered.
    var outstandingAtRelaunch: Set<Int>?
    var invalidating = false
    var finalized = false
    /// The transfer agent holding this background session's claim, while it does.
    var agentClaim: (link: TransferAgentLink, claim: BackgroundClaim)?

    init(
        configuration: ResumableURLSessionConfiguration, folders: SessionFolders, delegate: DelegateBox,
        queue: OperationQueue, send: @escaping @Sendable (SessionCommand) -> Void
    ) {
        self.commandSender = send
        self.configuration = configuration
        self.folders = folders
        self.delegateBox = delegate
        self.queue = queue
        self.line = DeliveryLine(queue: queue)
        self.logger = configuration.logger
        self.downloadCookies = DownloadCookies(configuration: configuration)
    }

    /// Opens the engine, takes up a background session's tasks, then serves commands until invalidated.
    func run(session: ResumableURLSession, commands: AsyncStream<SessionCommand>) async {
        self.session = session
        await open()
        for await command in commands {
            await handle(command)
            if finalized { break }
        }
    }

    private func open() async {
        let identifier = configuration.identifier ?? "session"
        do {
            await claimFromAgent()
            let engine = try await TransferSession.open(
                identifier: identifier, directory: folders.journal, configuration: configuration.engineConfiguration,
                logger: logger)
            self.engine = engine
            await engine.setRedirectApproval { [weak self] id, status, from, to in
                await self?.mayFollow(id, status: status, from: from, to: to) ?? true
            }
            await engine.setCookies(downloadCookies.engineCookies)
            await engine.setAuthorizer { [weak self] id, url, challenges throws(TransferError) in
                try await self?.authorize(id, url: url, challenges: challenges)
            }
            try? FileManager.default.createDirectory(at: folders.downloads, withIntermediateDirectories: true)
            // Subscribe before looking: events from now on wait in the stream while the tasks are rebuilt.
            let events = engine.events()
            await recover(from: engine)
            Task { for await event in events { await self.handle(event) } }
        } catch {
            logger.error("cannot open the session", metadata: ["identifier": "\(identifier)", "error": "\(error)"])
            await releaseToAgent()
            let failure = URLError.download(error, url: nil)
            openFailure = failure
            deliverToSession { delegate, session in delegate?.urlSession(session, didBecomeInvalidWithError: failure) }
        }
    }

    // MARK: - Commands

    func handle(_ command: SessionCommand) async {
        switch command {
        case .register(let task):
            tasks[task.taskIdentifier] = task
            books[task.taskIdentifier] = Book()
        case .registerData(let task):
            dataTasks[task.taskIdentifier] = task
        case .startData(let task):
            startData(task)
        case .cancelData(let task):
            cancelData(task)
        case .resume(let task):
            await resume(task)
        case .suspend(let task):
            guard var book = books[task.taskIdentifier], let id = book.transfer, let engine else { return }
            // The resource timeout waits while the task is suspended; the idle one starts again.
            book.stopTimers()
            book.timeLeft = book.deadlineEnds.map { $0 - .now }
            book.deadlineEnds = nil
            books[task.taskIdentifier] = book
            do { _ = try await engine.pause(id) } catch { logger.debug("suspend had no effect", metadata: ["error": "\(error)"]) }
        case .cancel(let task, let resumeData):
            await cancel(task, producingResumeData: resumeData)
        case .describe(let task):
            guard let id = books[task.taskIdentifier]?.transfer, let engine else { return }
            try? await engine.setTag(tag(for: task), for: id)
        case .allTasks(let handler):
            let downloads = tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier }
            let data = dataTasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier }
            deliverToSession { _, _ in handler(data, downloads) }
        case .invalidate(let cancelling):
            invalidating = true
            if cancelling {
                for task in dataTasks.values { task.cancel() }
                for task in tasks.values.sorted(by: { $0.taskIdentifier < $1.taskIdentifier }) {
                    task.status.withLock { if $0.state != .completed { $0.state = .canceling } }
                    await cancel(task, producingResumeData: nil)
                }
            }
            await finalizeIfDone()
        case .deliver(let body):
            deliver { _, _ in body() }
        }
    }

    private func resume(_ task: ResumableDownloadTask) async {
        let number = task.taskIdentifier
        guard var book = books[number], !book.finished else { return }
        guard let engine else {
            return complete(number, error: openFailure ?? URLError.make(.cancelled, "the session is not open", url: task.url))
        }
        if let id = book.transfer {
            if let left = book.timeLeft {
                (book.deadline, book.deadlineEnds, book.timeLeft) = (deadline(for: task, after: left), .now + left, nil)
            }
            if let limit = book.idleLimit, book.idleWatch == nil {
                (book.lastHeard, book.idleWatch) = (.now, idleWatch(for: number, limit: limit))
            }
            books[number] = book
            do { try await engine.resume(id) } catch { logger.debug("resume had no effect", metadata: ["error": "\(error)"]) }
            return
        }
        starting.insert(number)
        var started: TransferID?
        do throws(TransferError) {
            let id: TransferID
            switch task.origin {
            case .request(let request):
                guard let url = request.url else { throw TransferError(.invalidURL, "the request has no URL", permanent: true) }
                let method = request.httpMethod ?? "GET"
                guard method == "GET", request.httpBody == nil else {
                    throw TransferError(
                        .invalidRequest, "only GET requests without a body can be downloaded, not \(method)", permanent: true)
                }
                var headers = configuration.headers(for: request)
                if request.timeoutInterval != 60, request.timeoutInterval > 0 {
                    book.idleLimit = .milliseconds(Int64(request.timeoutInterval * 1000))
                }
                // As Apple's: compressed bodies asked for, and decoded before the file is handed over.
                if !headers.keys.contains(where: { $0.lowercased() == "accept-encoding" }) {
                    headers["Accept-Encoding"] = "gzip, deflate"
                }
                downloadCookies.set(number, RequestCookies(configuration: configuration, request: request))
                id = try await engine.start(
                    url: url, destination: folders.newDestination(), tag: tag(for: task), headers: headers)
                await configuration.afterEngineStart?()
            case .resumeData(let data):
                var resume = try ResumeData(encoded: data)
                guard let owned = folders.ownedFiles(partialFile: resume.partialFile, destination: resume.destination) else {
                    throw TransferError(
                        .invalidResumeData,
                        "the resume data names a file outside this session's folder (\(resume.partialFile.path))", permanent: true
                    )
                }
                (resume.partialFile, resume.destination) = owned
                resume.tag = tag(for: task)
                id = try await engine.resume(with: resume)
                if let other = byTransfer[id], other != number {
                    throw TransferError(.invalidResumeData, "the resume data is already in use by task \(other)", permanent: true)
                }
                book.announcesResume = true
                book.heardBytes = resume.bytesOnDisk
            }
            folders.recordIdentifier(number)
            book.transfer = id
            byTransfer[id] = number
            let limit = configuration.timeoutIntervalForResource
            if limit.isFinite, limit > 0, limit < 365 * 24 * 3600 {
                let left = Duration.milliseconds(Int64(limit * 1000))
                (book.deadline, book.deadlineEnds) = (deadline(for: task, after: left), .now + left)
            }
            if let limit = book.idleLimit { (book.lastHeard, book.idleWatch) = (.now, idleWatch(for: number, limit: limit)) }
            books[number] = book
            started = id
        } catch {
            complete(number, error: URLError.download(error, url: task.url))
        }
        starting.remove(number)
        await replayEarlyEvents(of: started)
    }

    /// Cancels a task: with a handler, its bytes are kept and the handler gets resume data.
    private func cancel(_ task: ResumableDownloadTask, producingResumeData handler: (@Sendable (Data?) -> Void)?) async {
        let number = task.taskIdentifier
        guard let book = markEnding(number) else {
            if let handler { deliver { _, _ in handler(nil) } }
            return
        }
        var data: Data?
        if let id = book.transfer, let engine {
            if handler != nil {
                data = await detach(id)
            } else {
                do { try await engine.cancel(id) } catch { await discardIfCompleted(id) }
                byTransfer[id] = nil
            }
        } else if case .resumeData(let given) = task.origin {
            data = given
        }
        if let handler { deliver { [data] _, _ in handler(data) } }
        complete(number, error: URLError.make(.cancelled, "cancelled", url: task.url, resumeData: data))
    }

    /// Stops a transfer and turns it into resume data; `nil` (and the bytes deleted) when they
    /// cannot be resumed safely.
    func detach(_ id: TransferID) async -> Data? {
        guard let engine else { return nil }
        byTransfer[id] = nil
        var resume: ResumeData
        do { resume = try await engine.detach(id) } catch {
            await discardIfCompleted(id)
            return nil
        }
        if resume.bytesOnDisk > 0, resume.validator.ifRange == nil {
            try? FileManager.default.removeItem(at: resume.partialFile)
            return nil
        }
        resume.tag = nil
        return try? resume.encoded()
    }

    /// A transfer that finished while it was being stopped: its file is nobody's now.
    private func discardIfCompleted(_ id: TransferID) async {
        guard let engine, let snapshot = await engine.transfer(id), snapshot.state == .completed else { return }
        try? FileManager.default.removeItem(at: snapshot.destination)
        try? await engine.forget(id)
    }

    func tag(for task: ResumableDownloadTask) -> String {
        TaskTag(task: task.taskIdentifier, description: task.taskDescription).encoded
    }

    /// Closes the engine and tells the delegate, once invalidation was asked and no task is left.
    func finalizeIfDone() async {
        guard invalidating, tasks.isEmpty, dataTasks.isEmpty, !finalized else { return }
        finalized = true
        await releaseToAgent()
        await engine?.close()
        if folders.isTemporary { try? FileManager.default.removeItem(at: folders.journal) }
        let box = delegateBox
        deliverToSession { delegate, session in
            delegate?.urlSession(session, didBecomeInvalidWithError: nil)
            box.release()
        }
        session = nil
    }
}
