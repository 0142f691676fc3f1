import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import TransferEngine

/// The engine's connections read up to 256 KiB at once (more only while a large body streams:
/// ``StreamReadSize``), one read a wake-up, instead of NIO's 64 KiB four times (fewer, larger body
/// parts a file): checked on the connections
/// AsyncHTTPClient really opens, over the wire, by reading the options back from each channel.
@Suite("How the engine's connections read", .timeLimit(.minutes(1)))
struct ConnectionReadsTests {
    /// What a connection's channel was set to, read back from it.
    struct Reads: Equatable {
        var maximumBytes: Int?
        var messagesPerRead: UInt
    }

    /// Fetches `url` with a client of `configuration` whose HTTP/1 connections report their read
    /// options once prepared; returns the response's status and what each connection reported.
    private func fetch(_ url: String, with configuration: HTTPClient.Configuration) async throws -> (UInt, [Reads]) {
        var configuration = configuration
        let prepare = try #require(configuration.http1_1ConnectionDebugInitializer)
        let seen = Mutex<[Reads]>([])
        configuration.http1_1ConnectionDebugInitializer = { channel in
            prepare(channel).flatMap {
                channel.getOption(ChannelOptions.recvAllocator).and(channel.getOption(ChannelOptions.maxMessagesPerRead))
            }.map { allocator, messages in
                let maximum = (allocator as? StreamReadSize)?.maximumBytes
                seen.withLock { $0.append(Reads(maximumBytes: maximum, messagesPerRead: messages)) }
            }
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.get(url: url).get()
            try await client.shutdown()
            return (response.status.code, seen.withLock { $0 })
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test("a connection the engine's client opens reads up to 256 KiB, once a wake-up")
    func engineConnections() async throws {
        try await withDemoCatalog { _, url in
            let (status, reads) = try await fetch(
                previewURL(url, 1001).absoluteString, with: TransferSessionConfiguration().httpClientConfiguration())
            #expect(status == 200)
            #expect(reads == [Reads(maximumBytes: 256 << 10, messagesPerRead: 1)])
        }
    }

    @Test("a connection initializer set before is kept, and runs first")
    func keepsEarlierInitializer() async throws {
        let order = Mutex<[String]>([])
        var configuration = HTTPClient.Configuration()
        configuration.http1_1ConnectionDebugInitializer = { channel in
            // NIO's defaults still hold here: the engine's options come after.
            channel.getOption(ChannelOptions.maxMessagesPerRead).map { messages in
                order.withLock { $0.append("earlier, \(messages) a wake-up") }
            }
        }
        try await withDemoCatalog { _, url in
            let (status, reads) = try await fetch(
                previewURL(url, 1001).absoluteString, with: ConnectionReads.applied(to: configuration))
            #expect(status == 200)
            #expect(order.withLock { $0 } == ["earlier, 4 a wake-up"])
            #expect(reads == [Reads(maximumBytes: 256 << 10, messagesPerRead: 1)])
        }
    }
}
