import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine
@testable import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Resume data and requests that cannot be used: a clear error, never a crash, never a file touched
/// outside the session's folder.
@Suite("ResumableURLSession bad input", .timeLimit(.minutes(1)))
struct ResumeDataInputTests {
    /// Resume data for `url` as a session of `state` makes it, for a partial file of `bytes` bytes.
    private func resumeData(url: URL, state: URL, bytes: Int64, validator: Validator) throws -> (ResumeData, URL) {
        let downloads = state.appendingPathComponent("default/downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let destination = downloads.appendingPathComponent("made-by-test.download")
        return (
            ResumeData(
                url: url, destination: destination, partialFile: URL(fileURLWithPath: destination.path + ".part"),
                bytesOnDisk: bytes, expectedBytes: nil, validator: validator),
            destination
        )
    }

    private func failure(_ data: Data, in folder: URL) async throws -> URLError? {
        try await withResumableSession(in: folder) { session, recorder in
            let task = session.downloadTask(withResumeData: data)
            task.resume()
            return await recorder.completion(of: task) as? URLError
        }
    }

    @Test("garbage, truncated, empty, newer-version and foreign resume data each fail their task with a clear error")
    func unusable() async throws {
        try await withTemporaryDirectory { folder in
            let (valid, _) = try resumeData(
                url: URL(string: "http://127.0.0.1:9/a.wav")!, state: folder.appendingPathComponent("state"), bytes: 10,
                validator: Validator(etag: "\"v1\""))
            let encoded = try valid.encoded()
            var newer = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
            newer["version"] = 2
            var elsewhere = valid
            elsewhere.destination = URL(fileURLWithPath: "/etc/passwd")
            elsewhere.partialFile = URL(fileURLWithPath: "/etc/passwd.part")
            let cases: [(Data, String)] = [
                (Data("garbage that is not resume data".utf8), "is not HalfTunes resume data"),
                (encoded.prefix(encoded.count / 2), "is truncated or damaged"),
                (Data(), "is empty"),
                (try JSONSerialization.data(withJSONObject: newer), "was made by a newer version"),
                (Data(#"{"format":"halftunes.resume-data","version":1}"#.utf8), "is incomplete"),
                (try elsewhere.encoded(), "names a file outside this session's folder"),
            ]
            for (data, message) in cases {
                let error = try #require(try await failure(data, in: folder), "\(message)")
                #expect(error.code == .cannotDecodeRawData, "\(message)")
                #expect(error.localizedDescription.contains(message), "\(error.localizedDescription)")
            }
        }
    }

    @Test(
        "resume data naming a destination or a partial file outside a downloads folder of the state folder is refused, whatever the other names, links and '..' resolved as the kernel does; nothing outside is touched"
    )
    func outsideTheStateFolder() async throws {
        try await withTemporaryDirectory { folder in
            let state = folder.appendingPathComponent("state")
            let (valid, inside) = try resumeData(
                url: URL(string: "http://127.0.0.1:9/a.wav")!, state: state, bytes: 4, validator: Validator(etag: "\"v1\""))
            let insidePart = URL(fileURLWithPath: inside.path + ".part")
            try Data("part".utf8).write(to: insidePart)
            let outside = folder.appendingPathComponent("outside", isDirectory: true)
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            let victim = outside.appendingPathComponent("victim.download")
            try Data("precious".utf8).write(to: victim)
            try Data("precious part".utf8).write(to: URL(fileURLWithPath: victim.path + ".part"))
            // A folder inside the state folder that is a link to the outside one.
            let linked = inside.deletingLastPathComponent().appendingPathComponent("linked")
            try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: outside)
            // A partial file inside that is a link to a file outside.
            let linkedPart = inside.deletingLastPathComponent().appendingPathComponent("link.download.part")
            try FileManager.default.createSymbolicLink(at: linkedPart, withDestinationURL: victim)
            let traversal = inside.deletingLastPathComponent().appendingPathComponent("../../../outside/victim.download")
            // Through the link, then up: inside as written, the state folder's parent as the kernel goes.
            let upThroughLink = inside.deletingLastPathComponent().appendingPathComponent("linked/../beside.download")
            let beside = folder.appendingPathComponent("beside.download")
            try Data("precious".utf8).write(to: beside)
            try Data("precious part".utf8).write(to: URL(fileURLWithPath: beside.path + ".part"))
            // Another session's journal, in the state folder but not a downloads folder.
            let otherSession = state.appendingPathComponent("sessions/other", isDirectory: true)
            try FileManager.default.createDirectory(at: otherSession, withIntermediateDirectories: true)
            let journal = otherSession.appendingPathComponent("session.journal.sqlite")
            try Data("journal".utf8).write(to: journal)
            // A partial file inside named as the outside destination's would be.
            let besideVictimPart = inside.deletingLastPathComponent().appendingPathComponent("victim.download.part")
            try Data("part".utf8).write(to: besideVictimPart)
            // Another session's downloads folder that is a link to the outside one.
            let linkedDownloads = state.appendingPathComponent("sessions/linked/downloads")
            try FileManager.default.createDirectory(
                at: linkedDownloads.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: linkedDownloads, withDestinationURL: outside)
            let cases: [(String, URL, URL)] = [
                ("a destination outside, its partial file inside", victim, insidePart),
                ("a destination outside, its partial file inside and named after it", victim, besideVictimPart),
                (
                    "both in a downloads folder that is a link", linkedDownloads.appendingPathComponent("victim.download"),
                    linkedDownloads.appendingPathComponent("victim.download.part")
                ),
                ("a destination inside, its partial file outside", inside, URL(fileURLWithPath: victim.path + ".part")),
                ("both outside, named alike", victim, URL(fileURLWithPath: victim.path + ".part")),
                ("both through '..' to the outside", traversal, URL(fileURLWithPath: traversal.path + ".part")),
                ("both through a link, then '..'", upThroughLink, URL(fileURLWithPath: upThroughLink.path + ".part")),
                ("another session's journal", journal, URL(fileURLWithPath: journal.path + ".part")),
                (
                    "both in a linked folder", linked.appendingPathComponent("victim.download"),
                    URL(fileURLWithPath: linked.appendingPathComponent("victim.download").path + ".part")
                ),
                (
                    "a partial file that is a link", inside.deletingLastPathComponent().appendingPathComponent("link.download"),
                    linkedPart
                ),
            ]
            for (what, destination, partial) in cases {
                var forged = valid
                forged.destination = destination
                forged.partialFile = partial
                let error = try #require(try await failure(try forged.encoded(), in: folder), "\(what): accepted")
                #expect(error.code == .cannotDecodeRawData, "\(what)")
                #expect(error.localizedDescription.contains("names a file outside this session's folder"), "\(what)")
            }
            #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
            #expect(try String(contentsOf: beside, encoding: .utf8) == "precious")
            #expect(try String(contentsOf: URL(fileURLWithPath: beside.path + ".part"), encoding: .utf8) == "precious part")
            #expect(try String(contentsOf: journal, encoding: .utf8) == "journal")
            #expect(try String(contentsOf: URL(fileURLWithPath: victim.path + ".part"), encoding: .utf8) == "precious part")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: outside.path).sorted()
                    == ["victim.download", "victim.download.part"])
            // The control: the resume data as the session made it is taken (its task then fails
            // on the refused connection, not on the data).
            let taken = try await failure(try valid.encoded(), in: folder)
            #expect(taken?.localizedDescription.contains("outside this session's folder") != true)
        }
    }

    @Test("resume data whose partial file is gone downloads the file whole from the URL it names")
    func partialFileGone() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1012))
            try await withTemporaryDirectory { folder in
                let (data, _) = try resumeData(
                    url: previewURL(base, 1012), state: folder.appendingPathComponent("state"), bytes: 50_000,
                    validator: Validator(etag: preview.etag))
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(withResumeData: try data.encoded())
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    let file = try #require(recorder.file(of: task))
                    #expect(sha256Hex(file) == sha256Hex(preview.data))
                    #expect(catalog.previewRequests.last { $0.trackId == 1012 }?.range == nil)
                }
            }
        }
    }

    @Test("requests the engine cannot make fail with unsupportedURL, naming why")
    func badRequests() async throws {
        try await withTemporaryDirectory { folder in
            try await withResumableSession(in: folder) { session, recorder in
                var post = URLRequest(url: URL(string: "http://127.0.0.1:9/a.wav")!)
                post.httpMethod = "POST"
                var ranged = URLRequest(url: URL(string: "http://127.0.0.1:9/a.wav")!)
                ranged.setValue("bytes=0-10", forHTTPHeaderField: "Range")
                let cases: [(ResumableDownloadTask, String)] = [
                    (session.downloadTask(with: post), "only GET requests"),
                    (session.downloadTask(with: ranged), "'Range' header is set by the transfer engine"),
                    (session.downloadTask(with: URL(string: "ftp://127.0.0.1/a.wav")!), "only http and https"),
                ]
                for (task, message) in cases {
                    task.resume()
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .unsupportedURL)
                    #expect(error.localizedDescription.contains(message), "\(error.localizedDescription)")
                }
            }
        }
    }

    @Test("header fields: the engine's own are refused, names and values are checked")
    func requestHeaders() throws {
        #expect(try RequestHeaders.validated(["Authorization": "Bearer x", "Accept-Encoding": "identity"]).count == 2)
        #expect(try RequestHeaders.validated(["Accept-Encoding": "gzip, deflate"]).count == 1)
        for headers in [
            ["Range": "bytes=0-"], ["if-range": "x"], ["Bad Name": "x"], ["X": "a\r\nb"],
        ] {
            #expect(throws: TransferError.self) { try RequestHeaders.validated(headers) }
        }
    }

    @Test("the state folder follows XDG_STATE_HOME, ignoring a relative one")
    func stateFolder() {
        let xdg = ResumableURLSessionConfiguration.defaultStateDirectory(environment: [
            "XDG_STATE_HOME": "/x/state", "HOME": "/h",
        ])
        #expect(xdg.path == "/x/state/resumable-urlsession")
        let relative = ResumableURLSessionConfiguration.defaultStateDirectory(environment: [
            "XDG_STATE_HOME": "rel", "HOME": "/h",
        ])
        #expect(relative.path == "/h/.local/state/resumable-urlsession")
    }

    @Test("a configuration is copied by the session: later changes do not reach it")
    func configurationIsCopied() async throws {
        try await withTemporaryDirectory { folder in
            let configuration = ResumableURLSessionConfiguration.background(withIdentifier: "copy.test")
            configuration.stateDirectory = folder
            configuration.usesTransferAgent = false  // this process's alone, whatever agent the machine runs
            configuration.httpMaximumConnectionsPerHost = 2
            let session = ResumableURLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
            configuration.httpMaximumConnectionsPerHost = 9
            #expect(session.configuration.httpMaximumConnectionsPerHost == 2)
            #expect(session.configuration.identifier == "copy.test")
            #expect(ResumableURLSessionConfiguration.default.identifier == nil)
            session.invalidateAndCancel()
        }
    }
}
