import Foundation
import Testing

@testable import Ripple

/// A `TopLevelEncoder` over Foundation's JSON encoder (RippleFoundation gives `JSONEncoder` this conformance;
/// Ripple's tests do without that module).
private struct JSONTestEncoder: TopLevelEncoder {
    func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value)
    }
}

/// A `TopLevelDecoder` over Foundation's JSON decoder.
private struct JSONTestDecoder: TopLevelDecoder {
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}

/// A `TopLevelEncoder` without Foundation: the value's description, or an error for negative numbers.
private struct DescribingEncoder: TopLevelEncoder {
    func encode<T: Encodable>(_ value: T) throws -> String {
        if let number = value as? Int, number < 0 { throw TestError.oops }
        return "\(value)"
    }
}

private struct Reading: Codable, Equatable {
    var sensor: String
    var celsius: Double
}

@Suite("encode(encoder:) and decode(type:decoder:)")
struct EncodeDecodeTests {
    @Test func encodesEveryValueAndPassesDemandThrough() throws {
        let upstream = TestPublisher<Reading, TestError>()
        let subscriber = TestSubscriber<Data, AnyErrorBox>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.encode(encoder: JSONTestEncoder()).mapError(AnyErrorBox.init).subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(2))])
        upstream.send(Reading(sensor: "a", celsius: 21.5))
        subscriber.request(.max(1))
        upstream.send(completion: .finished)
        #expect(upstream.calls == [.request(.max(2)), .request(.max(1))])
        #expect(
            subscriber.events == [
                .subscription("Encode"), .value(Data(#"{"celsius":21.5,"sensor":"a"}"#.utf8)), .finished,
            ])
    }

    @Test func anEncodingErrorCancelsTheUpstreamAndFails() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, AnyErrorBox>()
        defer { subscriber.cancel() }
        upstream.encode(encoder: DescribingEncoder()).mapError(AnyErrorBox.init).subscribe(subscriber)
        upstream.send(1)
        upstream.send(-1)
        upstream.send(2)
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(
            subscriber.events == [.subscription("Encode"), .value("1"), .failure(AnyErrorBox(TestError.oops))]
        )
    }

    @Test func anUpstreamFailureIsForwardedAsAnyError() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<String, AnyErrorBox>()
        defer { subscriber.cancel() }
        upstream.encode(encoder: DescribingEncoder()).mapError(AnyErrorBox.init).subscribe(subscriber)
        upstream.send(completion: .failure(.other))
        #expect(subscriber.events == [.subscription("Encode"), .failure(AnyErrorBox(TestError.other))])
    }

    @Test func decodesEveryValue() {
        let upstream = TestPublisher<Data, Never>()
        let subscriber = TestSubscriber<Reading, AnyErrorBox>(initialDemand: .max(1), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        upstream.decode(type: Reading.self, decoder: JSONTestDecoder()).mapError(AnyErrorBox.init)
            .subscribe(subscriber)
        #expect(upstream.send(Data(#"{"sensor":"b","celsius":-3}"#.utf8)) == .max(1), "the subscriber's demand")
        upstream.send(completion: .finished)
        #expect(upstream.calls == [.request(.max(1))])
        #expect(
            subscriber.events == [.subscription("Decode"), .value(Reading(sensor: "b", celsius: -3)), .finished]
        )
    }

    @Test func aDecodingErrorCancelsTheUpstreamAndFails() throws {
        let upstream = TestPublisher<Data, Never>()
        var failure: (any Error)?
        var values: [Reading] = []
        let cancellable = upstream.decode(type: Reading.self, decoder: JSONTestDecoder())
            .sink(
                receiveCompletion: { if case .failure(let error) = $0 { failure = error } },
                receiveValue: { values.append($0) }
            )
        upstream.send(Data("{}".utf8))
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(values.isEmpty)
        #expect(failure is DecodingError)
        cancellable.cancel()
    }

    @Test func asInCombineSignalsBeforeTheSubscriptionAreStillCoded() throws {
        let upstream = SubscriptionlessPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, AnyErrorBox>(initialDemand: nil, onValue: { _ in .max(4) })
        defer { subscriber.cancel() }
        upstream.encode(encoder: DescribingEncoder()).mapError(AnyErrorBox.init).subscribe(subscriber)
        let coder = try #require(upstream.subscriber)
        #expect(coder.receive(7) == .max(4), "the subscriber's demand comes back")
        coder.receive(completion: .finished)
        #expect(coder.receive(8) == .none, "nothing after the completion")
        #expect(subscriber.events == [.value("7"), .finished])
    }

    @Test func aCancelBeforeTheSubscriptionDoesNotRefuseIt() throws {
        let upstream = SubscriptionlessPublisher<Data, Never>()
        let subscriber = TestSubscriber<Reading, AnyErrorBox>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.decode(type: Reading.self, decoder: JSONTestDecoder()).mapError(AnyErrorBox.init)
            .subscribe(subscriber)
        let coder = try #require(upstream.rawSubscriber as? any Subscription)
        coder.cancel()
        let first = TestPublisher<Data, Never>()
        first.subscribe(try #require(upstream.subscriber))
        #expect(first.calls == [], "accepted, not cancelled")
        #expect(subscriber.events == [.subscription("Decode")])
        let second = TestPublisher<Data, Never>()
        second.subscribe(try #require(upstream.subscriber))
        #expect(second.calls == [.cancel], "a second subscription is refused")
        subscriber.cancel()
        #expect(first.calls == [.cancel])
    }

    @Test func descriptionAndMirror() throws {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, AnyErrorBox>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.encode(encoder: DescribingEncoder()).mapError(AnyErrorBox.init).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Encode")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
        #expect(mirror.children.first { $0.label == "finished" }?.value as? Bool == false)
        let playground = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
        #expect(playground.playgroundDescription as? String == "Encode")
    }

    @Test func roundTripThroughEncodeAndDecode() {
        let readings = [Reading(sensor: "a", celsius: 1), Reading(sensor: "b", celsius: 2)]
        var decoded: [Reading] = []
        let cancellable = readings.publisher
            .encode(encoder: JSONTestEncoder())
            .decode(type: Reading.self, decoder: JSONTestDecoder())
            .sink(receiveCompletion: { _ in }, receiveValue: { decoded.append($0) })
        #expect(decoded == readings)
        cancellable.cancel()
    }
}

/// Any error, compared by its description, for exact event histories of `any Error` streams.
struct AnyErrorBox: Error, Equatable {
    let error: any Error
    init(_ error: any Error) { self.error = error }
    static func == (lhs: AnyErrorBox, rhs: AnyErrorBox) -> Bool {
        String(reflecting: lhs.error) == String(reflecting: rhs.error)
    }
}

/// A publisher that keeps its subscriber without giving it a subscription, so that a test can send it
/// signals first.
private final class SubscriptionlessPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private(set) var subscriber: AnySubscriber<Output, Failure>?
    /// The subscriber itself, unwrapped.
    private(set) var rawSubscriber: Any?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        self.subscriber = AnySubscriber(subscriber)
        rawSubscriber = subscriber
    }
}
