import ArgumentParser

/// `--host` and `--port`, shared by the commands that run a server (each has its own default port).
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: "Address to listen on; anything but a loopback address exposes it to the network.")
    var host = "127.0.0.1"

    @Option(
        name: .long, help: "Port to listen on (0 picks a free one; default 8080 for serve, 8081 for demo-catalog).",
        transform: NumberIn.parser(0...65535))
    var port: Int?
}
