import Foundation
import Ripple
import RippleFoundation
import Testing

private struct Reading: Codable, Equatable {
    var sensor: String
    var celsius: Double
}

/// JSON and property-list coders as `TopLevelEncoder`/`TopLevelDecoder`, with `encode`/`decode`.
@Suite("Foundation coders")
struct FoundationCodersTests {
    private let readings = [Reading(sensor: "hall", celsius: 20.5), Reading(sensor: "attic", celsius: 31)]

    @Test func jsonRoundTrip() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var encoded: [Data] = []
        var decoded: [Reading] = []
        var completions = 0
        let first = readings.publisher.encode(encoder: encoder)
            .sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { encoded.append($0) })
        let second = encoded.publisher.decode(type: Reading.self, decoder: JSONDecoder())
            .sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { decoded.append($0) })
        #expect(encoded.map { String(decoding: $0, as: UTF8.self) }.first == #"{"celsius":20.5,"sensor":"hall"}"#)
        #expect(decoded == readings)
        #expect(completions == 2)
        first.cancel()
        second.cancel()
    }

    @Test func propertyListRoundTrip() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        var decoded: [Reading] = []
        let cancellable = readings.publisher
            .encode(encoder: encoder)
            .decode(type: Reading.self, decoder: PropertyListDecoder())
            .sink(receiveCompletion: { _ in }, receiveValue: { decoded.append($0) })
        #expect(decoded == readings)
        cancellable.cancel()
    }

    @Test func malformedJSONFailsWithTheDecodingError() {
        var failure: (any Error)?
        var values: [Reading] = []
        let cancellable = Just(Data("not json".utf8))
            .decode(type: Reading.self, decoder: JSONDecoder())
            .sink(
                receiveCompletion: { if case .failure(let error) = $0 { failure = error } },
                receiveValue: { values.append($0) })
        #expect(values.isEmpty)
        #expect(failure is DecodingError)
        cancellable.cancel()
    }

    @Test func recordingsEncodeInCombinesShape() throws {
        let record = Record<Int, Never>(output: [1, 2], completion: .finished)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(record), as: UTF8.self)
        #expect(json == #"{"recording":{"completion":{"success":true},"output":[1,2]}}"#)
        let demand = String(decoding: try encoder.encode([Subscribers.Demand.max(3), .unlimited]), as: UTF8.self)
        #expect(demand == "[3,9223372036854775808]")
    }
}
