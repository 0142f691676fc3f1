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
