import Foundation
import Testing

@testable import Ripple

@Suite("Record")
struct RecordTests {
    private typealias Sut = Record<Int, TestError>
    private typealias CodableSut = Record<Int, CodableError>

    @Test func emptyRecordingsCompleteAtOnce() {
        let finished = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { finished.cancel() }
        Sut { _ in }.subscribe(finished)
        #expect(finished.events == [.subscription("Empty"), .finished])

        let explicitlyFinished = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { explicitlyFinished.cancel() }
        Sut { $0.receive(completion: .finished) }.subscribe(explicitlyFinished)
        #expect(explicitlyFinished.events == [.subscription("Empty"), .finished])

        let failed = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { failed.cancel() }
        Sut { $0.receive(completion: .failure(.oops)) }.subscribe(failed)
        #expect(failed.events == [.subscription("Empty"), .failure(.oops)])
    }

    @Test func aRecordingWithoutCompletionStaysOpen() {
        let publisher = Sut { _ in }
        var recording = publisher.recording
        recording.receive(0)
        recording.receive(completion: .failure(.oops))
        #expect(publisher.recording.output == [])
        #expect(publisher.recording.completion == .finished)
        #expect(recording.output == [0])
        #expect(recording.completion == .failure(.oops))
    }

    @Test func deliversAsDemandedThenTheRecordedCompletion() throws {
        let publisher = Sut(output: [1, 2, 3, 4, 5], completion: .failure(.other))
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        publisher.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "[1, 2, 3, 4, 5]")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["sequence", "completion"])
        #expect(mirror.children.first?.value as? [Int] == [1, 2, 3, 4, 5])
        #expect(Array(mirror.children).last?.value as? Subscribers.Completion<TestError> == .failure(.other))

        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2])
        subscription.request(.none)  // accepted, as in Combine
        subscriber.request(.max(3))
        #expect(
            subscriber.events == [
                .subscription("[1, 2, 3, 4, 5]"), .value(1), .value(2), .value(3), .value(4), .value(5),
                .failure(.other),
            ]
        )
        #expect(String(describing: subscription) == "Cancelled Events")
        #expect(Mirror(reflecting: subscription).children.first?.value as? [Int] == [])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func recordBuiltWithTheClosure() {
        let publisher = Sut { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .finished)
        }
        #expect(publisher.recording.output == [1, 2])
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[1, 2]"), .value(1), .value(2), .finished])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func cancelInsideReceiveStopsAtOnce() {
        var subscriber: TestSubscriber<Int, TestError>?
        var cancelled: (any Subscription)?
        subscriber = TestSubscriber(onValue: { _ in
            cancelled = subscriber?.subscription
            subscriber?.cancel()
            return .unlimited
        })
        guard let subscriber else { return }
        Sut(output: [1, 2, 3], completion: .finished).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("[1, 2, 3]"), .value(1)])
        #expect(cancelled.map { String(describing: $0) } == "Cancelled Events")
    }

    @Test func requestFromInsideReceive() {
        var subscriber: TestSubscriber<Int, TestError>?
        subscriber = TestSubscriber(
            initialDemand: .max(1),
            onValue: { _ in
                subscriber?.request(.max(1))
                return .none
            })
        guard let subscriber else { return }
        Sut(output: [1, 2, 3, 4, 5], completion: .finished).subscribe(subscriber)
        #expect(
            subscriber.events == [
                .subscription("[1, 2, 3, 4, 5]"), .value(1), .value(2), .value(3), .value(4), .value(5), .finished,
            ])
    }

    @Test func sinkReceivesValuesThenTheCompletion() {
        var values: [Int] = []
        var completions: [Subscribers.Completion<TestError>] = []
        _ = Sut(output: [3, 2, 1], completion: .failure(.oops))
            .sink(receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        #expect(values == [3, 2, 1])
        #expect(completions == [.failure(.oops)])
    }

    @Test func recordingInitialiserDefaultsToFinished() {
        let recording = Sut.Recording(output: [1])
        #expect(recording.output == [1])
        #expect(recording.completion == .finished)
        #expect(Sut(recording: recording).recording.output == [1])
    }

    @Test func encodesAsCombineDoes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let finished = CodableSut(output: [3, 2, 1], completion: .finished)
        #expect(
            String(decoding: try encoder.encode(finished), as: UTF8.self)
                == #"{"recording":{"completion":{"success":true},"output":[3,2,1]}}"#
        )
        let failed = Record<Int, CodableError>(output: [], completion: .failure(CodableError(code: 7)))
        #expect(
            String(decoding: try encoder.encode(failed.recording), as: UTF8.self)
                == #"{"completion":{"error":{"code":7},"success":false},"output":[]}"#
        )
        var viaEncodeInto = Data()
        let helper = EncodeIntoProbe(recording: failed.recording)
        viaEncodeInto = try encoder.encode(helper)
        #expect(
            String(decoding: viaEncodeInto, as: UTF8.self)
                == String(decoding: try encoder.encode(failed.recording), as: UTF8.self))
    }

    @Test func decodesIntoAFinishedRecording() throws {
        let decoder = JSONDecoder()
        let record = try decoder.decode(
            CodableSut.self, from: Data(#"{"recording":{"completion":{"success":true},"output":[1,2]}}"#.utf8))
        #expect(record.recording.output == [1, 2])
        #expect(record.recording.completion == .finished)

        let failed = try decoder.decode(
            Record<Int, CodableError>.Recording.self,
            from: Data(#"{"completion":{"success":false,"error":{"code":3}},"output":[5]}"#.utf8)
        )
        #expect(failed.output == [5])
        #expect(failed.completion == .failure(CodableError(code: 3)))

        #expect(throws: DecodingError.self) {
            try decoder.decode(CodableSut.self, from: Data("{}".utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(CodableSut.Recording.self, from: Data(#"{"completion":{"success":true}}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(CodableSut.Recording.self, from: Data(#"{"output":[1,2]}"#.utf8))
        }
    }

    @Test func recordingAfterCompletionTraps() async {
        await #expect(processExitsWith: .failure) {
            var recording = Record<Int, Never>.Recording()
            recording.receive(completion: .finished)
            recording.receive(1)
        }
        await #expect(processExitsWith: .failure) {
            var recording = try JSONDecoder().decode(
                Record<Int, CodableError>.Recording.self,
                from: Data(#"{"completion":{"success":true},"output":[1,2]}"#.utf8)
            )
            recording.receive(42)
        }
    }
}

/// A codable error for the encoding tests.
private struct CodableError: Error, Codable, Equatable {
    var code: Int
}

/// Encodes a recording through `encode(into:)`.
private struct EncodeIntoProbe: Encodable {
    let recording: Record<Int, CodableError>.Recording

    func encode(to encoder: any Encoder) throws {
        try recording.encode(into: encoder)
    }
}
