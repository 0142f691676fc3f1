import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import X509

/// What was wrong with a server's TLS, in words: a certificate not trusted, expired, not yet
/// valid or for another name, or a handshake that failed for a protocol reason. Each is for good:
/// trying again the same way cannot help.
public enum TLSProblem: Sendable, Hashable {
    /// Self-signed, or signed by an authority this client does not trust.
    case untrusted
    /// It failed verification, and it could not be fetched again to tell why (through a proxy, or
    /// the server did not hand it over again in time).
    case unverified
    /// Its validity ended on that date.
    case expired(Date)
    /// Its validity starts on that date.
    case notYetValid(Date)
    /// It names other hosts; `certified` is empty when they are not known (the certificate was
    /// not looked at again).
    case wrongName(certified: [String], host: String)
    /// The handshake failed for another reason (BoringSSL's, in words).
    case handshake(String)

    /// One line: "the certificate of HOST:PORT is not trusted (self-signed or unknown authority)".
    public func message(server: String) -> String {
        switch self {
        case .untrusted: "the certificate of \(server) is not trusted (self-signed or unknown authority)"
        case .unverified: "the certificate of \(server) is not trusted (it could not be fetched again to tell why)"
        case .expired(let date): "the certificate of \(server) expired on \(Self.day(date))"
        case .notYetValid(let date):
            "the certificate of \(server) is not valid before \(Self.day(date)) (is this machine's clock right?)"
        case .wrongName(let names, let host) where names.isEmpty: "the certificate of \(server) is not for \(host)"
        case .wrongName(let names, let host):
            "the certificate of \(server) is for \(names.prefix(3).joined(separator: ", ")), not \(host)"
        case .handshake(let reason): "the TLS handshake with \(server) failed: \(reason)"
        }
    }

    /// Whether `error` is a TLS failure, told at once (no connection made).
    public static func isTLSFailure(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }

    /// The problem `error` is for a request to `url`, with the `host:port` to name in its message;
    /// `nil` when `error` is not about TLS. When the request went through a proxy (one of
    /// `proxies` serves `url`), the server is not contacted again to tell why (a direct connection
    /// may be impossible, or not what the user wants): the problem is then told from `error` alone.
    public static func diagnose(
        _ error: any Error, url: URL, proxies: ProxySettings = .none
    ) async -> (problem: TLSProblem, server: String)? {
        guard isTLSFailure(error), let host = url.host else { return nil }
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        let direct = proxies.server(for: url) == nil
        return await diagnose(error, host: host, port: port, looksAgain: direct).map { ($0, "\(host):\(port)") }
    }

    /// The problem `error` is, if it is a TLS failure. A failed verification does not say why, so
    /// the server's certificate is fetched once more, without verifying it, to tell (`nil` when
    /// `error` is not about TLS).
    ///
    /// - Parameter looksAgain: Whether the certificate may be fetched again to tell (else the
    ///   problem is told from `error` alone).
    public static func diagnose(_ error: any Error, host: String, port: Int, looksAgain: Bool = true) async -> TLSProblem? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            let names = looksAgain ? await certificate(host: host, port: port).map(Self.names(in:)) ?? [] : []
            return .wrongName(certified: names, host: host)
        }
        let reasons: [String]
        switch error {
        case NIOSSLError.handshakeFailed(let failure): reasons = Self.reasons(failure)
        case let failure as BoringSSLError: reasons = Self.reasons(failure)
        case let other as NIOSSLError: return .handshake("\(other)")
        case let other as NIOSSLExtraError: return .handshake(other.description)
        default: return nil
        }
        guard reasons.contains("CERTIFICATE_VERIFY_FAILED") else {
            return .handshake(reasons.first.map(Self.words) ?? "unknown reason")
        }
        guard looksAgain, let leaf = await certificate(host: host, port: port) else { return .unverified }
        let now = Date()
        if leaf.notValidAfter < now { return .expired(leaf.notValidAfter) }
        if leaf.notValidBefore > now { return .notYetValid(leaf.notValidBefore) }
        return .untrusted
    }

    /// BoringSSL's reason codes in a failure ("CERTIFICATE_VERIFY_FAILED", "WRONG_VERSION_NUMBER").
    private static func reasons(_ failure: BoringSSLError) -> [String] {
        guard case .sslError(let errors) = failure else { return ["\(failure)"] }
        // "… error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at …/handshake.cc:320"
        return errors.map { error in
            let text = error.description
            guard let match = text.firstMatch(of: /:([A-Z0-9_]{4,})(?: at |$)/) else { return text }
            return String(match.1)
        }
    }

    /// "WRONG_VERSION_NUMBER" → "wrong version number (is it a plain HTTP server?)".
    private static func words(_ reason: String) -> String {
        let text = reason.replacingOccurrences(of: "_", with: " ").lowercased()
        return reason == "WRONG_VERSION_NUMBER" ? text + " (is it a plain HTTP server? try http://)" : text
    }

    private static func day(_ date: Date) -> String {
        let format = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day()
        return date.formatted(format) + " (UTC)"
    }

    /// The host names and addresses a certificate is for (its subject alternative names).
    private static func names(in certificate: Certificate) -> [String] {
        let alternatives = (try? certificate.extensions.subjectAlternativeNames).map { Array($0) } ?? []
        return alternatives.compactMap { name in
            switch name {
            case .dnsName(let dns): dns
            case .ipAddress(let octets): IPAddressText.text(Array(octets.bytes))
            default: nil
            }
        }
    }

    /// The leaf certificate `host:port` presents, read over a connection that verifies nothing and
    /// closes at once; `nil` when it cannot be had within five seconds (connecting and the
    /// handshake together: a server that stalls the handshake holds no caller up).
    private static func certificate(host: String, port: Int) async -> Certificate? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let serverName = IPAddressText.isAddress(host) ? nil : host
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName)
                    try channel.pipeline.syncOperations.addHandlers(handler, HandshakeWaiter())
                }
            }
        let deadline = NIODeadline.now() + .seconds(5)
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else { return nil }
        // Closing the channel at the deadline ends the wait below (the waiter fails when it goes).
        let limit = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        defer {
            limit.cancel()
            channel.close(promise: nil)
        }
        let waiter = try? await channel.pipeline.handler(type: HandshakeWaiter.self).get()
        guard let waiter, (try? await waiter.done.futureResult.get()) != nil else { return nil }
        let der = try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate?.toDERBytes()
        }.get()
        return der.flatMap { $0 }.flatMap { try? Certificate(derEncoded: $0) }
    }
}

/// Completes when the TLS handshake has (or fails when the connection ends first).
private final class HandshakeWaiter: ChannelInboundHandler, Sendable {
    typealias InboundIn = Any
    let done: EventLoopPromise<Void>

    init() { done = MultiThreadedEventLoopGroup.singleton.next().makePromise() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { done.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { done.fail(error) }
    func channelInactive(context: ChannelHandlerContext) { done.fail(ChannelError.ioOnClosedChannel) }
}

/// IPv4 and IPv6 addresses as text.
enum IPAddressText {
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }

    static func text(_ bytes: [UInt8]) -> String? {
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 16:
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let ok = bytes.withUnsafeBytes { raw in inet_ntop(AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
            }
            return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        default: return nil
        }
    }
}
