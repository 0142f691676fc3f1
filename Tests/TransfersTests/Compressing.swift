import Foundation

/// `bytes` compressed by the system's `gzip` (an independent encoder), without a name or time,
/// on a thread of its own (the wait for the process would hold one of the suite's threads).
func gzipped(_ bytes: Data) async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try gzipNow(bytes) }) }
    }
}

private func gzipNow(_ bytes: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-c", "-n", "-6"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let writer = Thread {
        input.fileHandleForWriting.write(bytes)
        try? input.fileHandleForWriting.close()
    }
    writer.start()
    let compressed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return compressed
}

/// HTTP's `deflate` (the zlib format): gzip's deflate stream between a zlib header and the
/// Adler-32 of the original.
func deflated(_ bytes: Data) async throws -> Data {
    let gzipped = try await gzipped(bytes)
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in bytes {
        a = (a + UInt32(byte)) % 65521
        b = (b + a) % 65521
    }
    let adler = (b << 16) | a
    return Data([0x78, 0x9C]) + gzipped[10..<(gzipped.count - 8)]
        + Data([UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
}
