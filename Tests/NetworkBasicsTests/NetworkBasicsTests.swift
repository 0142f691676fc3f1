import Foundation
import NetworkBasics
import Testing

@Suite("Host classifier (pure)")
struct HostClassTests {
    @Test(
        "hosts are classified by their parsed address, not their spelling",
        arguments: [
            ("127.0.0.1", HostClass.loopback), ("127.9.8.7", .loopback), ("localhost", .loopback), ("LOCALHOST", .loopback),
            ("app.localhost", .loopback), ("::1", .loopback), ("[::1]", .loopback), ("0:0:0:0:0:0:0:1", .loopback),
            ("[::ffff:127.0.0.1]", .loopback), ("::ffff:7f00:1", .loopback),
            ("0.0.0.0", .unspecified), ("::", .unspecified), ("[::]", .unspecified),
            ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("192.168.1.1", .privateNetwork), ("169.254.169.254", .privateNetwork), ("100.64.0.1", .privateNetwork),
            ("fe80::1", .privateNetwork), ("fd12:3456::1", .privateNetwork), ("[::ffff:10.0.0.1]", .privateNetwork),
            ("printer.local", .privateNetwork), ("0.1.2.3", .privateNetwork),
            ("127.example.com", .publicNetwork), ("localhost.example.com", .publicNetwork), ("172.32.0.1", .publicNetwork),
            ("8.8.8.8", .publicNetwork), ("2001:db8::1", .publicNetwork), ("itunes.apple.com", .publicNetwork),
            ("127.0.0.1.nip.io", .publicNetwork), ("1.2.3", .publicNetwork), ("256.0.0.1", .publicNetwork),
            // Every numeric form the resolver takes (inet_aton's): fewer parts, one number, octal, hex.
            ("127.1", .loopback), ("2130706433", .loopback), ("0x7f000001", .loopback), ("0X7F.1", .loopback),
            ("0177.0.0.1", .loopback), ("127.0.1", .loopback), ("0", .unspecified), ("10.1", .privateNetwork),
            ("167772161", .privateNetwork), ("3232235777", .privateNetwork), ("0xa9fea9fe", .privateNetwork),
            ("4294967296", .publicNetwork), ("08.1.1.1", .publicNetwork), ("1.2.3.4.5", .publicNetwork),
            ("0x", .publicNetwork), ("1e100.net", .publicNetwork), ("000000000000000177.0.0.1", .loopback),
            ("0x00000000007f000001", .loopback), ("+127.1", .publicNetwork),
        ])
    func classify(host: String, expected: HostClass) {
        #expect(HostClass(host) == expected, "\(host)")
    }

    @Test(
        "a host is written as an address exactly when the system's resolver reads it as one (the fuzzer's findings)",
        arguments: [
            "127.1", "000000000000000177.0.0.1", "0x00000000007f000001", "+2", "0x", "0x.1", "08", "1.2.3.4.",
            "4294967295", "4294967296", "::ffff:63.0.0.1", "::ffff:063.0.0.1", "f::-0", "+f::", "27.0.0.1::12.0.0.1",
            "::1", "1::2:3.4.5.6", "1:2:3:4:5:6:7::", "12345::", "[::1]",
        ])
    func addressesAsTheResolverReadsThem(host: String) {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        let numeric = getaddrinfo(bare, nil, &hints, &list) == 0
        if let list { freeaddrinfo(list) }
        #expect(URLPolicy.isAddress(host) == numeric, "\(host): the resolver \(numeric ? "reads" : "does not read") an address")
    }
}

@Suite("URL policy (pure)")
struct URLPolicyTests {
    @Test(
        "only http(s) URLs with a host",
        arguments: [
            ("https://a.example/x", true), ("http://127.0.0.1:8080/x", true), ("ftp://a.example/x", false),
            ("file:///etc/passwd", false), ("https:///x", false), ("mailto:a@b.c", false), ("/relative", false),
            ("http://127.0.0.1:999999/x", false), ("http://127.0.0.1:65536/x", false), ("http://a.example:0/x", false),
            ("http://a.example:65535/x", true),
        ])
    func webURL(url: String, allowed: Bool) {
        #expect(URLPolicy.isWebURL(url) == allowed, "\(url)")
    }

    @Test(
        "a public catalog may not send HalfTunes to this machine or the local network",
        arguments: [
            "http://127.0.0.1/x.m4a", "http://localhost:8080/x", "http://10.0.0.1/x", "http://192.168.1.1/x",
            "http://172.16.5.4/x", "http://169.254.169.254/latest/meta-data", "http://[::1]/x", "http://0.0.0.0/x",
            "http://printer.local/x", "https://user:secret@audio.example.com/x.m4a", "ftp://audio.example.com/x",
            "file:///etc/passwd", "http://[::ffff:127.0.0.1]/x",
        ])
    func refused(url: String) {
        #expect(!URLPolicy.mayFetch(URL(string: url)!, from: "itunes.apple.com"))
    }

    @Test("public previews are fine; a catalog on this machine may point at this machine")
    func allowed() {
        let preview = URL(string: "https://audio-ssl.itunes.apple.com/itunes-assets/x.p.m4a?accessKey=1")!
        #expect(URLPolicy.mayFetch(preview, from: "itunes.apple.com"))
        #expect(URLPolicy.mayFetch(URL(string: "http://172.32.0.1/x")!, from: "itunes.apple.com"))
        #expect(URLPolicy.mayFetch(URL(string: "http://127.0.0.1:9000/previews/1.wav")!, from: "127.0.0.1"))
        #expect(!URLPolicy.mayFetch(URL(string: "http://u:p@127.0.0.1:9000/x")!, from: "127.0.0.1"))
    }
}

@Suite("Retry-After (pure)")
struct RetryAfterTests {
    @Test("seconds or an HTTP date, never negative; anything else is ignored")
    func parse() {
        #expect(RetryAfter.parse("7") == .seconds(7))
        #expect(RetryAfter.parse(" 120 ") == .seconds(120))
        #expect(RetryAfter.parse("-5") == .seconds(0))
        #expect(RetryAfter.parse(nil) == nil)
        #expect(RetryAfter.parse("soon") == nil)
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RetryAfter.parse("Mon, 12 Jan 1970 13:47:00 GMT", now: now) == .seconds(20))
        #expect(RetryAfter.parse("Mon, 12 Jan 1970 13:46:00 GMT", now: now) == .seconds(0))
    }
}
