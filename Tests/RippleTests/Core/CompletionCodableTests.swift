import Foundation
import Testing

@testable import Ripple

private struct CodableError: Error, Codable, Equatable {
    let code: Int
}

/// `Subscribers.Completion` encodes as Combine's: `{"success":true}` or `{"success":false,"error":…}`.
@Suite("Subscribers.Completion Codable")
struct CompletionCodableTests {
    private func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func encodesAsCombineDoes() throws {
        #expect(try json(Subscribers.Completion<CodableError>.finished) == #"{"success":true}"#)
        #expect(
            try json(Subscribers.Completion<CodableError>.failure(CodableError(code: 4)))
                == #"{"error":{"code":4},"success":false}"#)
        // `Never` is `Codable`, so a completion that cannot fail encodes too.
        #expect(try json(Subscribers.Completion<Never>.finished) == #"{"success":true}"#)
    }

    @Test func decodesWhatItEncodes() throws {
        let decoder = JSONDecoder()
        for completion in [Subscribers.Completion<CodableError>.finished, .failure(CodableError(code: 9))] {
            let data = try JSONEncoder().encode(completion)
            #expect(try decoder.decode(Subscribers.Completion<CodableError>.self, from: data) == completion)
        }
        #expect(
            try decoder.decode(Subscribers.Completion<Never>.self, from: Data(#"{"success":true}"#.utf8)) == .finished
        )
    }

    @Test func malformedInputThrows() {
        let decoder = JSONDecoder()
        #expect(throws: DecodingError.self) {
            try decoder.decode(Subscribers.Completion<CodableError>.self, from: Data("{}".utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(Subscribers.Completion<CodableError>.self, from: Data(#"{"success":false}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(Subscribers.Completion<CodableError>.self, from: Data(#"{"success":"yes"}"#.utf8))
        }
    }
}
