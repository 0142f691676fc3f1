import ArgumentParser
import DemoCatalog
import Logging

/// `halftunes demo-catalog`: the offline catalog alone, for trying the command line with no network.
struct DemoCatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-catalog",
        abstract: "Run the offline DemoCatalog (an iTunes-compatible server) until interrupted.")

    @OptionGroup var server: ServerOptions
    @OptionGroup var throttle: ThrottleOption

    func run() async throws {
        Terminal.bootstrapLogging()
        let catalog = DemoCatalog(logger: Logger(label: "halftunes.demo-catalog"))
        throttle.apply(to: catalog)
        try await reportingFailures {
            try await catalog.runUntilSignalled(host: server.host, port: server.port ?? 8081) { url in
                Terminal.write("DemoCatalog at \(url)\nTry: halftunes search love --catalog \(url)\n")
            }
        }
    }
}
