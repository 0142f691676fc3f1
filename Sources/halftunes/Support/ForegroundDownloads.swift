import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// Shows downloads in the foreground until each completes or fails (``ForegroundBatch``), on the
/// terminal's display; Ctrl-C or SIGTERM pauses a local control's downloads.
enum ForegroundDownloads {
    /// - Throws: `ExitCode` 8 when a download failed, 130 when interrupted; the error of a slice
    ///   that could not start, once the slices before it have finished.
    static func run(
        _ control: any DownloadControl, json: Bool, batch: BatchFeed, cap: Int? = nil, pausesOnInterrupt: Bool = true,
        write: @escaping (String) -> Void = Terminal.write,
        start: @escaping ([Int]) async throws -> [DownloadDocument]
    ) async throws {
        let output = BufferedOutput(write: write)
        let display = ProgressDisplay(
            mode: json ? .json : (TerminalWindow.isInteractive ? .terminal : .plain), color: TerminalWindow.usesColor,
            columns: { TerminalWindow.columns }, rows: { TerminalWindow.rows }, write: output.append,
            warn: { line in
                output.flush()
                Terminal.warn(line)
            })
        display.cap = cap
        let signals = await InterruptSignal.trap()
        let (interrupts, interrupt) = AsyncStream<Void>.makeStream()
        let trap = Task {
            for await _ in signals { interrupt.yield() }
        }
        let (inputs, forwarders) = try await ForegroundBatch.inputs(from: control, interrupts: interrupts)
        defer { (forwarders + [trap]).forEach { $0.cancel() } }
        let outcome = try await ForegroundBatch(
            control: control, feed: batch, display: display, output: output, pausesOnInterrupt: pausesOnInterrupt,
            start: start
        )
        .run(inputs)
        switch outcome {
        case .interrupted: throw ExitCode(ExitStatus.interrupted)
        case .finished(let failed) where failed > 0: throw ExitCode(ExitStatus.downloadFailed)
        case .finished: return
        }
    }
}
