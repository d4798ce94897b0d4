import Testing

@testable import Ripple

/// `Just`, `Result.Publisher` and `Optional.Publisher`: one value on the first request, then `.finished`.
@Suite("Just, Result.Publisher, Optional.Publisher")
struct SingleValuePublisherTests {
    @Test func justWaitsForDemandThenSendsTheValueAndFinishes() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        Just(42).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just")])
        subscriber.request(.max(100))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Just"), .value(42), .finished])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func justWithInitialDemand() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        Just(7).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just"), .value(7), .finished])
        #expect(subscriber.orderViolations == 0)
    }

    @Test func justDescriptionAndMirror() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        Just(42).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Just")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.count == 1)
        #expect(mirror.children.first?.label == nil)
        #expect(mirror.children.first?.value as? Int == 42)
        let playground = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
        #expect(playground.playgroundDescription as? String == "Just")
    }

    @Test func justCancelBeforeRequestSendsNothing() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        Just(42).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Just")])
    }

    @Test func justRequestFromInsideReceiveDeliversOnce() {
        var subscriber: TestSubscriber<Int, Never>?
        subscriber = TestSubscriber(onValue: { _ in
            subscriber?.request(.unlimited)
            return .unlimited
        })
        guard let subscriber else { return }
        Just(1).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just"), .value(1), .finished])
    }

    @Test func justReleasesTheSubscriberOnCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var subscription: (any Subscription)?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            weakSubscriber = subscriber
            Just(1).subscribe(subscriber)
            subscription = subscriber.subscription
        }
        #expect(weakSubscriber != nil)
        subscription?.cancel()
        #expect(weakSubscriber == nil)
    }

    @Test func justWithSinkAndEquality() {
        var values: [String] = []
        var completions: [Subscribers.Completion<Never>] = []
        _ = Just("a").sink(receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        #expect(values == ["a"])
        #expect(completions == [.finished])
        #expect(Just(1) == Just(1))
        #expect(Just(1) != Just(2))
        #expect(Just(3).output == 3)
    }

    @Test func justRacingRequestsAndCancelsDeliversAtMostOnce() async {
        for _ in 0..<200 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            Just(5).subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        if index == 3 { subscriber.cancel() } else { subscriber.request(.max(1)) }
                    }
                }
            }
            let events = subscriber.events
            #expect(events == [.subscription("Just")] || events == [.subscription("Just"), .value(5), .finished])
            #expect(subscriber.orderViolations == 0)
        }
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            Just(1).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func resultSuccessIsOnce() throws {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Result<Int, TestError>.success(3).publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Once")])
        let subscription = try #require(subscriber.subscription)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Once"), .value(3), .finished])
        #expect(Mirror(reflecting: subscription).children.first?.value as? Int == 3)
    }

    @Test func resultFailureFailsAtOnceWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Result<Int, TestError>.failure(.oops).publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .failure(.oops)])
    }

    @Test func resultPublisherInitialisersAndEquality() {
        typealias Sut = Result<Int, TestError>.Publisher
        #expect(Sut(1).result == .success(1))
        #expect(Sut(.oops).result == .failure(.oops))
        #expect(Sut(.success(2)) == Sut(2))
        #expect(Sut(.failure(.other)) != Sut(.oops))
        let cancelled = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { cancelled.cancel() }
        Sut(1).subscribe(cancelled)
        cancelled.cancel()
        cancelled.request(.max(1))
        #expect(cancelled.events == [.subscription("Once")])
    }

    @Test func optionalSomeIsOptional() throws {
        let subscriber = TestSubscriber<String, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        Optional("x").publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Optional")])
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription("Optional"), .value("x"), .finished])
    }

    @Test func optionalNoneFinishesAtOnce() {
        let subscriber = TestSubscriber<String, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        Optional<String>.none.publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .finished])
    }

    @Test func optionalPublisherInitialiserAndEquality() {
        #expect(Optional<Int>.Publisher(4).output == 4)
        #expect(Optional<Int>.Publisher(nil) == Optional<Int>.none.publisher)
        #expect(Optional(1).publisher != Optional(2).publisher)
    }
}
