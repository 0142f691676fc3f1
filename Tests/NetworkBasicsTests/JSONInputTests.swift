import Foundation
import NetworkBasics
import Testing

@Suite("JSON from outside the process (pure)")
struct JSONInputTests {
    private struct Answer: Decodable, Equatable {
        var results: [Int]
    }

    /// The inputs on which `JSONDecoder` itself traps (the process ends): the 513th nested array
    /// opened by the last byte. Were they passed on, this suite would crash rather than fail.
    static let crashing: [String] = [
        String(repeating: "[", count: 513),
        String(repeating: "{\"a\":", count: 512) + "[",
    ]

    @Test("input that would crash JSONDecoder is refused as not JSON", arguments: crashing)
    func refusesWhatCrashesTheDecoder(_ text: String) {
        do {
            _ = try JSONInput.decode(Answer.self, from: Data(text.utf8))
            Issue.record("decoded \(text.prefix(20))…")
        } catch DecodingError.dataCorrupted(let context) {
            // Refused here, before JSONDecoder: its own error for this input (where it does not
            // trap, as on a thread with a large stack) says the nesting is too deep.
            #expect(context.codingPath.isEmpty)
            #expect(context.debugDescription == "The given data was not valid JSON.", "\(context.debugDescription)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("everything else reaches JSONDecoder: JSON decodes, deep or broken input is its error")
    func passesTheRestOn() throws {
        #expect(try JSONInput.decode(Answer.self, from: Data(#"{"results":[1,2]}"#.utf8)) == Answer(results: [1, 2]))
        for text in [
            String(repeating: "[", count: 512), String(repeating: "[", count: 514), String(repeating: "[", count: 513) + " ",
            String(repeating: "[", count: 513) + String(repeating: "]", count: 513), #"{"results":[1,"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONInput.decode(Answer.self, from: Data(text.utf8)) }
        }
    }
}
