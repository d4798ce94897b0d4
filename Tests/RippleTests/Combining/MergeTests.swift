import Foundation
import Testing

@testable import Ripple

@Suite("Merge, Merge3…Merge8, MergeMany")
struct MergeTests {
    typealias Source = TestPublisher<Int, TestError>

    @Test func aDemandOfNothingTraps() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            Publishers.Merge(TestPublisher<Int, TestError>(), TestPublisher<Int, TestError>()).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            Publishers.MergeMany([TestPublisher<Int, TestError>()]).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func interleavesByArrivalAndFinishesWhenEveryUpstreamFinished() {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        #expect(a.send(100) == .none)
        a.send(200)
        b.send(1)
        a.send(300)
        a.send(completion: .finished)
        a.send(400)
        #expect(subscriber.events == [.subscription("Merge"), .value(100), .value(200), .value(1), .value(300)])
        b.send(2)
        b.send(completion: .finished)
        b.send(completion: .finished)
        #expect(
            subscriber.events == [
                .subscription("Merge"), .value(100), .value(200), .value(1), .value(300), .value(2), .finished,
            ])
        #expect(a.calls == [.request(.unlimited)])
        #expect(b.calls == [.request(.unlimited)])
    }

    @Test func everyArityAndEveryWayOfBuildingIt() {
        expectMerges(2) { Publishers.Merge($0[0], $0[1]) }
        expectMerges(2) { $0[0].merge(with: $0[1].eraseToAnyPublisher()) }
        expectMerges(3) { $0[0].merge(with: $0[1], $0[2]) }
        expectMerges(4) { $0[0].merge(with: $0[1], $0[2], $0[3]) }
        expectMerges(5) { $0[0].merge(with: $0[1], $0[2], $0[3], $0[4]) }
        expectMerges(6) { $0[0].merge(with: $0[1], $0[2], $0[3], $0[4], $0[5]) }
        expectMerges(7) { $0[0].merge(with: $0[1], $0[2], $0[3], $0[4], $0[5], $0[6]) }
        expectMerges(8) { $0[0].merge(with: $0[1], $0[2], $0[3], $0[4], $0[5], $0[6], $0[7]) }

        let merge = { (s: [Source]) in Publishers.Merge(s[0], s[1]) }
        expectMerges(3) { merge($0).merge(with: $0[2]) }
        expectMerges(4) { merge($0).merge(with: $0[2], $0[3]) }
        expectMerges(5) { merge($0).merge(with: $0[2], $0[3], $0[4]) }
        expectMerges(6) { merge($0).merge(with: $0[2], $0[3], $0[4], $0[5]) }
        expectMerges(7) { merge($0).merge(with: $0[2], $0[3], $0[4], $0[5], $0[6]) }
        expectMerges(8) { merge($0).merge(with: $0[2], $0[3], $0[4], $0[5], $0[6], $0[7]) }

        let merge3 = { (s: [Source]) in Publishers.Merge3(s[0], s[1], s[2]) }
        expectMerges(4) { merge3($0).merge(with: $0[3]) }
        expectMerges(5) { merge3($0).merge(with: $0[3], $0[4]) }
        expectMerges(6) { merge3($0).merge(with: $0[3], $0[4], $0[5]) }
        expectMerges(7) { merge3($0).merge(with: $0[3], $0[4], $0[5], $0[6]) }
        expectMerges(8) { merge3($0).merge(with: $0[3], $0[4], $0[5], $0[6], $0[7]) }

        let merge4 = { (s: [Source]) in Publishers.Merge4(s[0], s[1], s[2], s[3]) }
        expectMerges(5) { merge4($0).merge(with: $0[4]) }
        expectMerges(6) { merge4($0).merge(with: $0[4], $0[5]) }
        expectMerges(7) { merge4($0).merge(with: $0[4], $0[5], $0[6]) }
        expectMerges(8) { merge4($0).merge(with: $0[4], $0[5], $0[6], $0[7]) }

        let merge5 = { (s: [Source]) in Publishers.Merge5(s[0], s[1], s[2], s[3], s[4]) }
        expectMerges(6) { merge5($0).merge(with: $0[5]) }
        expectMerges(7) { merge5($0).merge(with: $0[5], $0[6]) }
        expectMerges(8) { merge5($0).merge(with: $0[5], $0[6], $0[7]) }

        let merge6 = { (s: [Source]) in Publishers.Merge6(s[0], s[1], s[2], s[3], s[4], s[5]) }
        expectMerges(7) { merge6($0).merge(with: $0[6]) }
        expectMerges(8) { merge6($0).merge(with: $0[6], $0[7]) }

        expectMerges(8) { Publishers.Merge7($0[0], $0[1], $0[2], $0[3], $0[4], $0[5], $0[6]).merge(with: $0[7]) }

        expectMerges(1) { Publishers.MergeMany($0) }
        expectMerges(3) { Publishers.MergeMany($0[0], $0[1], $0[2]) }
        expectMerges(10) { Publishers.MergeMany($0) }
        expectMerges(3) { Publishers.MergeMany($0[0], $0[1]).merge(with: $0[2]) }
        expectMerges(2) { $0[0].merge(with: $0[1]) }
    }

    /// Merges `count` fresh sources with `make`, and checks values, completion and requests.
    private func expectMerges<P: Publisher>(
        _ count: Int, sourceLocation: SourceLocation = #_sourceLocation, _ make: ([Source]) -> P
    ) where P.Output == Int, P.Failure == TestError {
        let sources = (0..<count).map { _ in Source() }
        let subscriber = TestSubscriber<Int, TestError>()
        make(sources).subscribe(subscriber)
        for (index, source) in sources.enumerated().reversed() {
            source.send(index)
        }
        for source in sources.dropLast() {
            source.send(completion: .finished)
        }
        let expected: [Event<Int, TestError>] = [.subscription("Merge")] + (0..<count).reversed().map { .value($0) }
        #expect(subscriber.events == expected, sourceLocation: sourceLocation)
        sources.last?.send(completion: .finished)
        #expect(subscriber.events == expected + [.finished], sourceLocation: sourceLocation)
        #expect(sources.allSatisfy { $0.calls == [.request(.unlimited)] }, sourceLocation: sourceLocation)
    }

    @Test func mergingWithTheSameTypeGivesMergeMany() {
        let a = Source()
        let b = Source()
        let c = Source()
        let many: Publishers.MergeMany<Source> = a.merge(with: b)
        #expect(many.publishers.map(ObjectIdentifier.init) == [a, b].map(ObjectIdentifier.init))
        let more: Publishers.MergeMany<Source> = many.merge(with: c)
        #expect(more.publishers.map(ObjectIdentifier.init) == [a, b, c].map(ObjectIdentifier.init))
        let fromSequence = Publishers.MergeMany([a, b, c].lazy.filter { $0 !== b })
        #expect(fromSequence.publishers.map(ObjectIdentifier.init) == [a, c].map(ObjectIdentifier.init))
        let merge3 = Publishers.Merge3(a, b, c)
        #expect(merge3.a === a && merge3.b === b && merge3.c === c)
    }

    @Test func mergeManyOfNothingFinishesAtTheFirstRequest() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Publishers.MergeMany<Source>([]).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Merge")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Merge"), .finished])
    }

    @Test func limitedDemandBuffersOneValuePerUpstreamAndDrainsInUpstreamOrder() {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        #expect(a.calls == [.request(.max(1))])
        #expect(b.calls == [.request(.max(1))])

        #expect(a.send(100) == .max(1))
        #expect(b.send(1) == .none)
        #expect(a.send(200) == .none)
        #expect(a.send(300) == .none, "an upstream sending beyond its demand replaces its buffered value")
        #expect(b.send(2) == .none)
        #expect(subscriber.values == [100])

        subscriber.request(.max(1))
        #expect(subscriber.values == [100, 300])
        #expect(a.calls == [.request(.max(1)), .request(.max(1))])
        #expect(b.calls == [.request(.max(1))])

        subscriber.request(.max(5))
        #expect(subscriber.values == [100, 300, 2])
        #expect(b.calls == [.request(.max(1)), .request(.max(1))])
        #expect(a.send(400) == .max(1))
        #expect(subscriber.values == [100, 300, 2, 400])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func upstreamsAskedBeforeTheDownstreamWantsUnlimitedAreAskedAgain() {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        #expect(a.send(1) == .none)
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1])
        #expect(a.calls == [.request(.max(1)), .request(.unlimited)])
        #expect(b.calls == [.request(.max(1)), .request(.unlimited)])
        #expect(b.send(2) == .none)
        subscriber.request(.max(3))
        #expect(a.calls == [.request(.max(1)), .request(.unlimited)])
        #expect(subscriber.values == [1, 2])
    }

    @Test func aRequestFromInsideReceiveOnlyAddsDemand() throws {
        for initial in [Subscribers.Demand.max(1), .max(10), .unlimited] {
            let a = Source()
            let b = Source()
            var subscriber: TestSubscriber<Int, TestError>?
            subscriber = TestSubscriber(
                initialDemand: initial,
                onValue: { _ in
                    subscriber?.request(.max(666))
                    return .none
                })
            Publishers.Merge(a, b).subscribe(try #require(subscriber))
            let expected: Subscribers.Demand = initial == .unlimited ? .none : .max(1)
            #expect(a.send(1) == expected)
            #expect(b.send(2) == expected)
            #expect(a.calls == [.request(initial == .unlimited ? .unlimited : .max(1))])
            #expect(subscriber?.values == [1, 2])
            subscriber?.cancel()
        }
    }

    @Test func aValueSentWhileDeliveringIsDeliveredAfterTheCurrentOne() {
        for initial in [Subscribers.Demand.max(2), .unlimited] {
            let a = Source()
            let b = Source()
            var depth = 0
            var maxDepth = 0
            let subscriber = TestSubscriber<Int, TestError>(
                initialDemand: initial,
                onValue: { value in
                    depth += 1
                    maxDepth = max(maxDepth, depth)
                    if value == 1 { b.send(2) }
                    depth -= 1
                    return .none
                })
            defer { subscriber.cancel() }
            Publishers.Merge(a, b).subscribe(subscriber)
            a.send(1)
            #expect(subscriber.values == [1, 2])
            #expect(maxDepth == 1)
            #expect(subscriber.demandViolations == 0)
        }
    }

    @Test func waitsForBufferedValuesBeforeFinishing() {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        a.send(1)
        a.send(completion: .finished)
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Merge")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .finished])
        #expect(a.calls == [.request(.max(1))], "a finished upstream is not asked for more")
    }

    @Test func theFirstFailureCancelsEveryUpstreamAndEndsTheStream() {
        let a = Source()
        let b = Source()
        let c = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        Publishers.Merge3(a, b, c).subscribe(subscriber)
        a.send(1)
        b.send(completion: .failure(.oops))
        a.send(2)
        c.send(completion: .failure(.other))
        c.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .failure(.oops)])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel], "as Combine, the failed upstream is cancelled too")
        #expect(c.calls == [.request(.unlimited), .cancel])
    }

    @Test func aFailureAfterFinishingIsIgnored() {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        a.send(completion: .finished)
        b.send(completion: .finished)
        a.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("Merge"), .finished])
    }

    @Test func aFailureWhileAnotherUpstreamIsDeliveringComesAfterThatValue() {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .unlimited,
            onValue: { [unowned a, unowned b] value in
                if value == 1 {
                    b.send(completion: .failure(.oops))
                    a.send(99)
                }
                return .none
            })
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        a.send(1)
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .failure(.oops)])
        #expect(subscriber.orderViolations == 0)
    }

    @Test func cancelCancelsEveryUpstreamOnceAndStopsDelivery() throws {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        Publishers.Merge(a, b).subscribe(subscriber)
        a.send(1)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.cancel()
        subscription.request(.max(1))
        a.send(2)
        b.send(completion: .finished)
        a.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("Merge"), .value(1)])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancellingFromReceiveSubscriptionStillHandsEachUpstreamACancel() {
        let a = Source()
        let b = Source()
        let cancelling = AnySubscriber<Int, TestError>(receiveSubscription: { $0.cancel() })
        Publishers.Merge(a, b).subscribe(cancelling)
        #expect(a.calls == [.cancel])
        #expect(b.calls == [.cancel])
    }

    @Test func anUpstreamSubscribedTwiceCancelsTheSecondSubscription() throws {
        var captured: AnySubscriber<Int, TestError>?
        let recorder = CombiningRecordingPublisher<Int, TestError> { captured = $0 }
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Publishers.Merge(recorder, Source()).subscribe(subscriber)
        let side = try #require(captured)
        let second = Source()
        second.subscribe(side)
        #expect(second.calls == [.cancel])
        #expect(side.description == "Merge")
        #expect(side.customMirror.children.first?.label == "parentSubscription")
        let subscription = try #require(subscriber.subscription)
        #expect(side.customMirror.children.first?.value as? CombineIdentifier == subscription.combineIdentifier)
        #expect(String(describing: subscription) == "Merge")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Merge")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(side.playgroundDescription as? String == "Merge")
    }

    @Test func equatableWhenTheUpstreamsAre() {
        let p = (0..<9).map(CombiningEquatablePublisher.init)
        #expect(Publishers.Merge(p[0], p[1]) == Publishers.Merge(p[0], p[1]))
        #expect(Publishers.Merge(p[0], p[1]) != Publishers.Merge(p[0], p[2]))
        #expect(Publishers.Merge3(p[0], p[1], p[2]) == Publishers.Merge3(p[0], p[1], p[2]))
        #expect(Publishers.Merge3(p[0], p[1], p[2]) != Publishers.Merge3(p[0], p[1], p[3]))
        #expect(Publishers.Merge4(p[0], p[1], p[2], p[3]) == Publishers.Merge4(p[0], p[1], p[2], p[3]))
        #expect(Publishers.Merge4(p[0], p[1], p[2], p[3]) != Publishers.Merge4(p[0], p[1], p[2], p[4]))
        #expect(Publishers.Merge5(p[0], p[1], p[2], p[3], p[4]) == Publishers.Merge5(p[0], p[1], p[2], p[3], p[4]))
        #expect(Publishers.Merge5(p[0], p[1], p[2], p[3], p[4]) != Publishers.Merge5(p[0], p[1], p[2], p[3], p[5]))
        #expect(
            Publishers.Merge6(p[0], p[1], p[2], p[3], p[4], p[5])
                == Publishers.Merge6(p[0], p[1], p[2], p[3], p[4], p[5])
        )
        #expect(
            Publishers.Merge6(p[0], p[1], p[2], p[3], p[4], p[5])
                != Publishers.Merge6(p[0], p[1], p[2], p[3], p[4], p[6])
        )
        #expect(
            Publishers.Merge7(p[0], p[1], p[2], p[3], p[4], p[5], p[6])
                == Publishers.Merge7(p[0], p[1], p[2], p[3], p[4], p[5], p[6])
        )
        #expect(
            Publishers.Merge7(p[0], p[1], p[2], p[3], p[4], p[5], p[6])
                != Publishers.Merge7(p[0], p[1], p[2], p[3], p[4], p[5], p[7])
        )
        #expect(
            Publishers.Merge8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
                == Publishers.Merge8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
        )
        #expect(
            Publishers.Merge8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
                != Publishers.Merge8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[8])
        )
        #expect(Publishers.MergeMany(p[0], p[1]) == Publishers.MergeMany([p[0], p[1]]))
        #expect(Publishers.MergeMany(p[0], p[1]) != Publishers.MergeMany(p[1], p[0]))
    }

    @Test func synchronousUpstreamsDoNotGrowTheStack() {
        let count = 60_000
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        CombiningSyncSequence<Int, Never>(Array(0..<count))
            .merge(with: CombiningSyncSequence<Int, Never>(Array(count..<(2 * count))))
            .subscribe(subscriber)
        #expect(subscriber.values.count == 2 * count)
        #expect(combiningPerSourceOrderHolds(subscriber.values, stride: count))
        #expect(subscriber.events.last == .finished)
        #expect(subscriber.demandViolations == 0)
    }

    // MARK: Concurrency

    @Test(arguments: [Subscribers.Demand.max(1), .unlimited])
    func upstreamsSendingFromManyThreadsReachTheSubscriberSerially(initial: Subscribers.Demand) {
        let sources = 4
        let perSource = 2_000
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: initial, onValue: { _ in initial == .unlimited ? .none : .max(1) },
            onCompletion: { _ in done.signal() }
        )
        defer { subscriber.cancel() }
        let publishers = (0..<sources).map { source in
            CombiningPacedPublisher<Int, Never>(Array((source * perSource)..<(source * perSource + perSource)))
        }
        Publishers.MergeMany(publishers).subscribe(subscriber)
        #expect(combiningAwait(done))
        let values = subscriber.values
        #expect(values.count == sources * perSource)
        #expect(Set(values).count == sources * perSource)
        #expect(combiningPerSourceOrderHolds(values, stride: perSource))
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
        #expect(subscriber.events.last == .finished)
    }

    @Test func concurrentRequestsCancelAndFailuresAreSafe() {
        for round in 0..<50 {
            let failing = CombiningPacedPublisher<Int, TestError>(Array(200..<250), completion: .failure(.oops))
            let others = (0..<2).map { source in
                CombiningPacedPublisher<Int, TestError>(Array((source * 100)..<(source * 100 + 100)))
            }
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
            Publishers.Merge3(others[0], others[1], failing).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for _ in 0..<40 {
                    subscriber.request(.max(1))
                }
                if worker == 3, round.isMultiple(of: 2) { subscriber.cancel() }
            }
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
            #expect(combiningPerSourceOrderHolds(subscriber.values, stride: 100))
            subscriber.cancel()
        }
    }
}
