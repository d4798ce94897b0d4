import Foundation
import Testing

@testable import Ripple

@Suite("SwitchToLatest")
struct SwitchToLatestTests {
    typealias Inner = TestPublisher<Int, TestError>
    typealias Upstream = TestPublisher<Inner, TestError>

    @Test func republishesOnlyTheLatestInnerAndCancelsThePreviousOne() {
        let upstream = Upstream()
        let first = Inner()
        let second = Inner()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        #expect(upstream.calls == [.request(.unlimited)])

        #expect(upstream.send(first) == .none)
        first.send(1)
        upstream.send(second)
        first.send(666)
        second.send(2)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2)])
        #expect(first.calls == [.request(.unlimited), .cancel])
        #expect(second.calls == [.request(.unlimited)])
    }

    @Test func carriesTheOutstandingDemandOverToEachNewInner() throws {
        let upstream = Upstream()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onValue: { _ in .max(5) })
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)

        let first = Inner()
        upstream.send(first)
        #expect(first.calls == [])
        subscriber.request(.max(1))
        #expect(first.calls == [.request(.max(1))])
        first.send(completion: .finished)

        subscriber.request(.max(41))
        subscriber.request(.max(1))
        let second = Inner()
        upstream.send(second)
        #expect(second.calls == [.request(.max(43))])
        #expect(second.send(1) == .max(5))
        #expect(second.send(2) == .max(5))

        let third = Inner()
        upstream.send(third)
        #expect(second.calls == [.request(.max(43)), .cancel])
        #expect(third.calls == [.request(.max(51))])
        upstream.send(completion: .finished)
        subscriber.request(.max(9))
        #expect(third.calls == [.request(.max(51)), .request(.max(9))])
        #expect(upstream.calls == [.request(.unlimited)])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aValueBeyondTheDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = Upstream()
            let inner = Inner()
            upstream.switchToLatest().subscribe(TestSubscriber<Int, TestError>(initialDemand: .max(1)))
            upstream.send(inner)
            _ = inner.send(1)
            _ = inner.send(2)
        }
    }

    @Test func anInnerCompletionBeforeItsSubscriptionTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<LatePublisher<Int, TestError>, TestError>()
            let inner = LatePublisher<Int, TestError>()
            upstream.switchToLatest().subscribe(TestSubscriber<Int, TestError>())
            _ = upstream.send(inner)
            inner.send(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<LatePublisher<Int, TestError>, TestError>()
            let inner = LatePublisher<Int, TestError>()
            upstream.switchToLatest().subscribe(TestSubscriber<Int, TestError>())
            _ = upstream.send(inner)
            inner.send(completion: .failure(.oops))
        }
    }

    @Test func anInnerValueBeforeItsSubscriptionIsDeliveredWithinTheDemand() {
        let upstream = TestPublisher<LatePublisher<Int, TestError>, TestError>()
        let inner = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .unlimited, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        _ = upstream.send(inner)
        #expect(inner.send(1) == .max(42))
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1)])
        subscriber.cancel()
    }

    @Test func finishesOnceTheUpstreamAndTheLatestInnerFinished() {
        for innerFirst in [false, true] {
            let upstream = Upstream()
            let inner = Inner()
            let subscriber = TestSubscriber<Int, TestError>()
            upstream.switchToLatest().subscribe(subscriber)
            upstream.send(inner)
            if innerFirst {
                inner.send(completion: .finished)
                #expect(subscriber.events == [.subscription("SwitchToLatest")])
                upstream.send(completion: .finished)
            } else {
                upstream.send(completion: .finished)
                inner.send(1)
                #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1)])
                inner.send(completion: .finished)
            }
            inner.send(completion: .finished)
            upstream.send(completion: .finished)
            #expect(subscriber.events.last == .finished)
            #expect(subscriber.orderViolations == 0)
            #expect(inner.calls == [.request(.unlimited)])
        }
    }

    @Test func finishesAtOnceWithoutAnInner() {
        let upstream = Upstream()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.send(Inner())
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .finished])
    }

    @Test func anInnerFailureCancelsTheUpstream() {
        let upstream = Upstream()
        let inner = Inner()
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        #expect(inner.send(1) == .max(1))
        #expect(inner.send(2) == .max(1))
        inner.send(completion: .failure(.oops))
        inner.send(completion: .failure(.oops))
        inner.send(completion: .finished)
        #expect(inner.send(3) == .none)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2), .failure(.oops)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(inner.calls == [.request(.max(1))])
    }

    @Test func anUpstreamFailureCancelsTheInner() {
        let upstream = Upstream()
        let inner = Inner()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        upstream.send(completion: .failure(.oops))
        inner.send(1)
        inner.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .failure(.oops)])
        #expect(inner.calls == [.request(.unlimited), .cancel])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func cancelCancelsTheInnerThenTheUpstreamOnce() throws {
        let upstream = Upstream()
        let inner = Inner()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(42))
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.cancel()
        subscription.request(.max(1))
        inner.send(1)
        inner.send(completion: .failure(.oops))
        upstream.send(Inner())
        #expect(inner.calls == [.request(.max(42)), .cancel])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(subscriber.events == [.subscription("SwitchToLatest")])
    }

    @Test func rejectsExtraSubscriptionsForTheUpstreamAndForAnInner() throws {
        typealias Erased = AnyPublisher<Int, TestError>
        var captured: AnySubscriber<Erased, TestError>?
        let recorder = CombiningRecordingPublisher<Erased, TestError> { captured = $0 }
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        recorder.switchToLatest().subscribe(subscriber)
        let outer = try #require(captured)
        let extraUpstream = TestPublisher<Erased, TestError>()
        extraUpstream.subscribe(outer)
        #expect(extraUpstream.calls == [.cancel])

        var innerSide: AnySubscriber<Int, TestError>?
        let inner = CombiningRecordingPublisher<Int, TestError> { innerSide = $0 }
        _ = outer.receive(inner.eraseToAnyPublisher())
        let side = try #require(innerSide)
        let extraInner = Inner()
        extraInner.subscribe(side)
        #expect(extraInner.calls == [.cancel])
        #expect(side.description == "SwitchToLatest")
        #expect(side.playgroundDescription as? String == "SwitchToLatest")
        let subscription = try #require(subscriber.subscription)
        #expect(side.customMirror.children.first?.label == "parentSubscription")
        #expect(side.customMirror.children.first?.value as? CombineIdentifier == subscription.combineIdentifier)
        #expect(outer.description == "SwitchToLatest")
        #expect(String(describing: subscription) == "SwitchToLatest")
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "SwitchToLatest")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    }

    @Test func anInnerSubscriptionArrivingAfterASwitchIsCancelled() throws {
        var sides: [AnySubscriber<Int, TestError>] = []
        let late = CombiningRecordingPublisher<Int, TestError> { sides.append($0) }
        let upstream = TestPublisher<AnyPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(late.eraseToAnyPublisher())
        let current = Inner()
        upstream.send(current.eraseToAnyPublisher())
        let stale = try #require(sides.first)
        let lateSubscription = Inner()
        lateSubscription.subscribe(stale)
        #expect(lateSubscription.calls == [.cancel])
        current.send(5)
        #expect(subscriber.values == [5])
    }

    /// As in Combine, the latest inner publisher, once it finished while the stream goes on, is taken again
    /// when it sends a new subscription (which only a broken publisher does): the subscription is asked for
    /// the outstanding demand, its values pass on, and the stream finishes once it and the upstream have.
    /// After the end, a subscription is cancelled.
    @Test func theLatestInnerTakesANewSubscriptionAfterItFinishedAsInCombine() throws {
        var sides: [AnySubscriber<Int, TestError>] = []
        let recorder = CombiningRecordingPublisher<Int, TestError>(sendsSubscription: false) { sides.append($0) }
        let upstream = TestPublisher<AnyPublisher<Int, TestError>, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3))
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(recorder.eraseToAnyPublisher())
        let side = try #require(sides.first)
        let first = Inner()
        first.subscribe(side)
        #expect(first.send(1) == .none)
        first.send(completion: .finished)
        let again = Inner()
        again.subscribe(side)
        #expect(again.send(2) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2)])
        again.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2), .finished])
        let afterTheEnd = Inner()
        afterTheEnd.subscribe(side)
        #expect(first.calls == [.request(.max(3))])
        #expect(again.calls == [.request(.max(2))])
        #expect(afterTheEnd.calls == [.cancel])
    }

    @Test func switchingFromInsideReceiveHandsTheReturnedDemandToTheNewInner() {
        let upstream = Upstream()
        let first = Inner()
        let second = Inner()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(1),
            onValue: { value in
                if value == 1 { upstream.send(second) }
                return .max(1)
            })
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        #expect(first.send(1) == .none, "the demand returned for the old inner's value goes to the new inner")
        #expect(first.calls == [.request(.max(1)), .cancel])
        #expect(second.calls == [.request(.max(1))])
        #expect(second.send(2) == .max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aValueSentWhileDeliveringIsQueuedNotDeliveredReentrantly() {
        let upstream = Upstream()
        let first = Inner()
        let second = Inner()
        var depth = 0
        var maxDepth = 0
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(2),
            onValue: { [unowned upstream, unowned second] value in
                depth += 1
                maxDepth = max(maxDepth, depth)
                if value == 1 {
                    upstream.send(second)
                    second.send(2)
                    upstream.send(completion: .finished)
                    second.send(completion: .finished)
                }
                depth -= 1
                return .max(3)
            })
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        first.send(1)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2), .finished])
        #expect(maxDepth == 1)
        #expect(second.calls == [.request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aFailureWhileDeliveringComesAfterTheQueuedValues() {
        let upstream = Upstream()
        let inner = Inner()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .unlimited,
            onValue: { [unowned inner] value in
                if value == 1 {
                    inner.send(2)
                    inner.send(completion: .failure(.oops))
                    inner.send(3)
                }
                return .none
            })
        defer { subscriber.cancel() }
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2), .failure(.oops)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancellingWhileDeliveringDropsTheQueue() {
        let upstream = Upstream()
        let inner = Inner()
        var subscriber: TestSubscriber<Int, TestError>?
        subscriber = TestSubscriber(
            initialDemand: .unlimited,
            onValue: { [unowned inner] value in
                if value == 1 {
                    inner.send(2)
                    subscriber?.cancel()
                }
                return .none
            })
        upstream.switchToLatest().subscribe(subscriber ?? TestSubscriber())
        upstream.send(inner)
        inner.send(1)
        #expect(subscriber?.events == [.subscription("SwitchToLatest"), .value(1)])
        subscriber = nil
    }

    @Test func overloadForAnUpstreamThatCannotFail() {
        let upstream = TestPublisher<Inner, Never>()
        let inner = Inner()
        let switched:
            Publishers.SwitchToLatest<Inner, Publishers.SetFailureType<TestPublisher<Inner, Never>, TestError>> =
                upstream.switchToLatest()
        #expect(switched.upstream.upstream === upstream)
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        switched.subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        inner.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .failure(.oops)])
    }

    @Test func overloadForInnersThatCannotFail() {
        typealias NeverInner = TestPublisher<Int, Never>
        let upstream = TestPublisher<NeverInner, TestError>()
        let inner = NeverInner()
        let switched:
            Publishers.SwitchToLatest<
                Publishers.SetFailureType<NeverInner, TestError>,
                Publishers.Map<TestPublisher<NeverInner, TestError>, Publishers.SetFailureType<NeverInner, TestError>>
            > = upstream.switchToLatest()
        #expect(switched.upstream.upstream === upstream)
        #expect(switched.upstream.transform(inner).upstream === inner)
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        switched.subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        inner.send(completion: .finished)
        upstream.send(completion: .failure(.other))
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .failure(.other)])
    }

    @Test func overloadWhenNeitherCanFail() {
        typealias NeverInner = TestPublisher<Int, Never>
        let upstream = TestPublisher<NeverInner, Never>()
        let inner = NeverInner()
        let switched: Publishers.SwitchToLatest<NeverInner, TestPublisher<NeverInner, Never>> =
            upstream.switchToLatest()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        switched.subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        upstream.send(completion: .finished)
        inner.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .finished])
    }

    @Test func synchronousInnersDoNotGrowTheStack() {
        let count = 60_000
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        CombiningSyncSequence<CombiningSyncSequence<Int, Never>, Never>([
            CombiningSyncSequence(Array(0..<count)), CombiningSyncSequence(Array(count..<(2 * count))),
        ])
        .switchToLatest()
        .subscribe(subscriber)
        #expect(subscriber.values == Array(0..<(2 * count)))
        #expect(subscriber.events.last == .finished)
    }

    // MARK: Concurrency

    @Test func switchingWhileInnersSendFromOtherThreads() {
        let inners = 20
        let perInner = 300
        let upstream = TestPublisher<Int, Never>()
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1), onValue: { _ in .max(1) }, onCompletion: { _ in done.signal() }
        )
        defer { subscriber.cancel() }
        let publishers = (0..<inners).map { inner in
            CombiningPacedPublisher<Int, Never>(Array((inner * perInner)..<(inner * perInner + perInner)))
        }
        upstream.map { publishers[$0] }.switchToLatest().subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            if worker == 0 {
                for inner in 0..<inners {
                    upstream.send(inner)
                }
                upstream.send(completion: .finished)
            } else {
                for _ in 0..<200 {
                    subscriber.request(.max(1))
                }
            }
        }
        #expect(combiningAwait(done))
        let values = subscriber.values
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
        #expect(combiningPerSourceOrderHolds(values, stride: perInner))
        let last = (inners - 1) * perInner
        #expect(values.filter { $0 >= last } == Array(last..<(last + perInner)), "the last inner is never cancelled")
        #expect(values.last == last + perInner - 1)
        #expect(subscriber.events.last == .finished)
    }
}

extension TestPublisher where Failure == Never {
    /// This publisher's values transformed by `transform`, for building publishers of publishers.
    fileprivate func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<TestPublisher, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}
