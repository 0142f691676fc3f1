import Foundation
import Testing

@testable import TransferEngine

@Suite("Transfer ids (pure)")
struct TransferIDTests {
    @Test("new ids are distinct random UUIDs in lower case, as Foundation reads them")
    func randomUUIDs() {
        let ids = (0..<2_000).map { _ in TransferID.make().rawValue }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let uuid = UUID(uuidString: id)
            #expect(uuid?.uuidString.lowercased() == id, "\(id)")
            let characters = Array(id)
            #expect(characters[14] == "4" && "89ab".contains(characters[19]), "version 4, variant 1: \(id)")
        }
    }
}

@Suite("Transfer ids as keys and in JSON (pure)")
struct TransferIDKeyTests {
    @Test("an id is its text: equal texts are equal ids with equal hashes, other texts are not equal")
    func equalityFollowsText() {
        let made = TransferID.make()
        let again = TransferID(rawValue: String(made.rawValue.utf8.map { Character(UnicodeScalar($0)) }))
        #expect(made == again)
        #expect(made.hashValue == again.hashValue)
        #expect(Set([made, again]).count == 1)
        #expect(TransferID(rawValue: "a") != TransferID(rawValue: "b"))
        var table: [TransferID: Int] = [:]
        let texts = (0..<500).map { "t\($0)" }
        for (n, text) in texts.enumerated() { table[TransferID(rawValue: text)] = n }
        let found = texts.map { table[TransferID(rawValue: $0)] ?? -1 }
        #expect(found == Array(0..<500))
        #expect(table[TransferID(rawValue: "t500")] == nil)
    }

    @Test("in JSON an id is its text alone, and reads back as the same id")
    func codableAsText() throws {
        let id = TransferID(rawValue: "4f0c-id")
        let data = try JSONEncoder().encode(["id": id])
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":"4f0c-id"}"#)
        let back = try #require(try JSONDecoder().decode([String: TransferID].self, from: data)["id"])
        #expect(back == id)
        #expect(back.hashValue == id.hashValue)
    }
}
