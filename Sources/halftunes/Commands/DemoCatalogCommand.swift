import ArgumentParser
import DemoCatalog
import Logging

/// `halftunes demo-catalog`: the offline catalog alone, for trying the command line with no network.
struct DemoCatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-catalog",
        abstract: "Run the offline DemoCatalog (an iTunes-compatible server) until interrupted.")

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port = 8081

    @OptionGroup var throttle: ThrottleOption

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        let catalog = DemoCatalog(logger: Logger(label: "halftunes.demo-catalog"))
        throttle.apply(to: catalog)
        try await reportingFailures {
            try await catalog.runUntilSignalled(host: host, port: port) { url in
                Terminal.write("DemoCatalog at \(url)\nTry: halftunes search love --catalog \(url)\n")
            }
        }
    }
}
