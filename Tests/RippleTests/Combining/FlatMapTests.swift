import Foundation
import Testing

@testable import Ripple

@Suite("FlatMap")
struct FlatMapTests {
    typealias Child = TestPublisher<Int, TestError>
    typealias Upstream = TestPublisher<Child, TestError>

    @Test func interleavesInnerValuesAndFinishesOnceUpstreamAndEveryInnerFinished() {
        let upstream = Upstream()
        let child1 = Child()
        let child2 = Child()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)

        #expect(upstream.send(child1) == .none)
        upstream.send(child2)
        #expect(child1.send(1) == .none)
        child2.send(2)
        child1.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap"), .value(1), .value(2)])

        child2.send(3)
        child2.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap"), .value(1), .value(2), .value(3), .finished])
        #expect(upstream.calls == [.request(.unlimited)])
        #expect(child1.calls == [.request(.unlimited)])
        #expect(child2.calls == [.request(.unlimited)])
    }

    @Test func finishesWhenTheLastInnerFinishesAfterTheUpstream() {
        let upstream = Upstream()
        let child = Child()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.flatMap(maxPublishers: .max(1)) { $0 }.subscribe(subscriber)
        upstream.send(child)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap")])
        child.send(completion: .finished)
        child.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap"), .finished])
        #expect(upstream.calls == [.request(.max(1))])
    }

    @Test func sendsTheSubscriptionDownstreamBeforeSubscribingUpstream() {
        var eventsWhenUpstreamWasSubscribed: [Event<Int, TestError>] = []
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        let recorder = CombiningRecordingPublisher<Child, TestError> { _ in
            eventsWhenUpstreamWasSubscribed = subscriber.events
        }
        recorder.flatMap { $0 }.subscribe(subscriber)
        #expect(eventsWhenUpstreamWasSubscribed == [.subscription("FlatMap")])
    }

    @Test func maxPublishersLimitsTheUpstreamAndAsksOneMorePerFinishedInner() {
        let upstream = Upstream()
        let children = [Child(), Child(), Child()]
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.flatMap(maxPublishers: .max(2)) { $0 }.subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(2))])
        upstream.send(children[0])
        upstream.send(children[1])
        children[0].send(completion: .finished)
        #expect(upstream.calls == [.request(.max(2)), .request(.max(1))])
        upstream.send(children[2])
        children[2].send(7)
        children[1].send(completion: .finished)
        children[2].send(completion: .finished)
        #expect(upstream.calls == [.request(.max(2)), .request(.max(1)), .request(.max(1)), .request(.max(1))])
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap"), .value(7), .finished])
    }

    @Test func maxPublishersNonePassesTheZeroRequestUpstreamAsCombineDoes() {
        let upstream = Upstream()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.flatMap(maxPublishers: .none) { $0 }.subscribe(subscriber)
        #expect(upstream.calls == [.request(.none)])
        #expect(subscriber.events == [.subscription("FlatMap")])
    }

    @Test func limitedDemandAsksEachInnerForOneValueAtATimeAndBuffersTheRest() throws {
        let upstream = Upstream()
        let child1 = Child()
        let child2 = Child()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child1)
        upstream.send(child2)
        #expect(child1.calls == [.request(.max(1))])
        #expect(child2.calls == [.request(.max(1))])

        #expect(child1.send(666) == .max(1))
        #expect(child1.send(777) == .max(1))
        #expect(child1.send(888) == .none)
        #expect(child1.send(999) == .none)
        #expect(subscriber.values == [666, 777])

        subscriber.request(.max(10))
        #expect(subscriber.values == [666, 777, 888, 999])
        #expect(child1.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))])
        #expect(child2.calls == [.request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func switchingToUnlimitedFlushesTheBufferAndUnlimitsEveryInner() {
        let upstream = Upstream()
        let child1 = Child()
        let child2 = Child()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child1)
        upstream.send(child2)
        child1.send(1)
        child2.send(2)
        child1.send(3)
        #expect(subscriber.values == [1])

        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 3])
        #expect(child1.calls == [.request(.max(1)), .request(.unlimited)])
        #expect(child2.calls == [.request(.max(1)), .request(.unlimited)])
        #expect(child2.send(4) == .none)
        let child3 = Child()
        upstream.send(child3)
        #expect(child3.calls == [.request(.unlimited)])
        #expect(subscriber.values == [1, 2, 3, 4])
    }

    @Test func aRequestFromInsideReceiveOnlyAddsDemand() throws {
        let upstream = Upstream()
        let child = Child()
        var subscriber: TestSubscriber<Int, TestError>?
        subscriber = TestSubscriber(
            initialDemand: nil,
            onValue: { value in
                if value == 0 { subscriber?.request(.max(3)) }
                return .none
            })
        let downstream = try #require(subscriber)
        upstream.flatMap(maxPublishers: .max(1)) { $0 }.subscribe(downstream)
        downstream.request(.max(1))
        upstream.send(child)
        #expect(child.calls == [.request(.max(1))])

        for value in 0...3 {
            #expect(child.send(value) == .max(1))
        }
        for value in 4...6 {
            #expect(child.send(value) == .none)
        }
        #expect(downstream.values == [0, 1, 2, 3])

        downstream.request(.max(10))
        #expect(downstream.values == [0, 1, 2, 3, 4, 5, 6])
        #expect(child.calls == Array(repeating: .request(.max(1)), count: 4))
        #expect(upstream.calls == [.request(.max(1))])
        #expect(downstream.demandViolations == 0)
        downstream.cancel()
    }

    @Test func valuesAnsweringADrainRequestAreQueuedNotDeliveredReentrantly() throws {
        let upstream = TestPublisher<CombiningSyncSequence<Int, TestError>, TestError>()
        let child = CombiningSyncSequence<Int, TestError>(Array(1...5))
        var depth = 0
        var maxDepth = 0
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: nil,
            onValue: { _ in
                depth += 1
                maxDepth = max(maxDepth, depth)
                depth -= 1
                return .none
            })
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child)
        upstream.send(completion: .finished)
        #expect(child.requests == [.max(1)])
        #expect(subscriber.values == [])

        for expected in 1...5 {
            subscriber.request(.max(1))
            #expect(subscriber.values == Array(1...expected))
        }
        #expect(subscriber.events.last == .finished)
        #expect(child.requests == Array(repeating: .max(1), count: 5), "the last drain finds the child finished")
        #expect(maxDepth == 1)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aValueSentWhileDeliveringIsDeliveredAfterTheCurrentOne() {
        let upstream = Upstream()
        let child1 = Child()
        let child2 = Child()
        var depth = 0
        var maxDepth = 0
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(2),
            onValue: { value in
                depth += 1
                maxDepth = max(maxDepth, depth)
                if value == 666 { child2.send(777) }
                depth -= 1
                return .none
            })
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child1)
        upstream.send(child2)
        #expect(child1.send(666) == .max(1))
        #expect(subscriber.events == [.subscription("FlatMap"), .value(666), .value(777)])
        #expect(maxDepth == 1)
        #expect(child1.calls == [.request(.max(1))])
        #expect(child2.calls == [.request(.max(1)), .request(.max(1))])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func doesNotFinishWhileValuesAreBuffered() {
        let upstream = Upstream()
        let child = Child()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child)
        #expect(child.send(666) == .max(1))
        #expect(child.send(777) == .none)
        upstream.send(completion: .finished)
        child.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap"), .value(666)])
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription("FlatMap"), .value(666), .value(777), .finished])
    }

    @Test func anInnerFailureCancelsTheOtherInnersAndTheUpstream() {
        let upstream = Upstream()
        let children = [Child(), Child(), Child()]
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        children.forEach { upstream.send($0) }

        children[1].send(completion: .failure(.oops))
        #expect(children[0].calls == [.request(.unlimited), .cancel])
        #expect(children[1].calls == [.request(.unlimited)])
        #expect(children[2].calls == [.request(.unlimited), .cancel])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(subscriber.events == [.subscription("FlatMap"), .failure(.oops)])

        children[2].send(completion: .failure(.other))
        children[0].send(5)
        upstream.send(Child())
        #expect(subscriber.events == [.subscription("FlatMap"), .failure(.oops)])
        #expect(subscriber.orderViolations == 0)
    }

    @Test func anUpstreamFailureCancelsEveryInnerBeforeItIsDelivered() {
        let upstream = Upstream()
        let child = Child()
        let late = Child()
        var childCallsAtFailure: [Child.Call] = []
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(4),
            onCompletion: { [unowned child] _ in
                childCallsAtFailure = child.calls
            })
        defer { subscriber.cancel() }
        upstream.flatMap(maxPublishers: .max(3)) { $0 }.subscribe(subscriber)
        upstream.send(child)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .failure(.oops))
        upstream.send(late)
        #expect(childCallsAtFailure == [.request(.max(1)), .cancel])
        #expect(subscriber.events == [.subscription("FlatMap"), .failure(.oops)])
        #expect(upstream.calls == [.request(.max(3))])
        #expect(late.subscriptions == 0)
    }

    @Test func aFailureIsDeliveredAtOnceDroppingBufferedValues() {
        let upstream = Upstream()
        let child = Child()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child)
        child.send(666)
        child.send(777)
        upstream.send(completion: .failure(.oops))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("FlatMap"), .value(666), .failure(.oops)])
    }

    @Test func cancelCancelsInnersThenUpstreamOnceAndStopsDelivery() throws {
        let upstream = Upstream()
        let child = Child()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(42))
        defer { subscriber.cancel() }
        upstream.flatMap { $0 }.subscribe(subscriber)
        upstream.send(child)
        child.send(1)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.cancel()
        subscription.request(.unlimited)
        child.send(2)
        child.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(child.calls == [.request(.max(1)), .cancel])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(subscriber.events == [.subscription("FlatMap"), .value(1)])
    }

    @Test func cancellingFromInsideReceiveStopsEverything() {
        let upstream = Upstream()
        let child = Child()
        var subscriber: TestSubscriber<Int, TestError>?
        subscriber = TestSubscriber(
            initialDemand: .unlimited,
            onValue: { _ in
                subscriber?.cancel()
                return .none
            })
        upstream.flatMap { $0 }.subscribe(subscriber ?? TestSubscriber())
        upstream.send(child)
        child.send(1)
        child.send(2)
        #expect(subscriber?.events == [.subscription("FlatMap"), .value(1)])
        #expect(child.calls == [.request(.unlimited), .cancel])
        subscriber = nil
    }

    @Test func rejectsASecondUpstreamSubscriptionAndAnyAfterCancel() throws {
        var captured: AnySubscriber<Child, TestError>?
        let recorder = CombiningRecordingPublisher<Child, TestError> { captured = $0 }
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        recorder.flatMap { $0 }.subscribe(subscriber)
        let feeder = try #require(captured)
        let second = Upstream()
        second.subscribe(feeder)
        #expect(second.calls == [.cancel])
        subscriber.cancel()
        let third = Upstream()
        third.subscribe(feeder)
        #expect(third.calls == [.cancel])
    }

    @Test func describesItselfAsFlatMap() throws {
        let upstream = Upstream()
        let child = Child()
        var innerSubscriber: AnySubscriber<Int, TestError>?
        let recorder = CombiningRecordingPublisher<Int, TestError> { innerSubscriber = $0 }
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.flatMap { _ in recorder }.subscribe(subscriber)
        upstream.send(child)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "FlatMap")
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "FlatMap")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        let inner = try #require(innerSubscriber)
        #expect(inner.description == "FlatMap")
        #expect(inner.customMirror.children.first?.label == "parentSubscription")
        #expect(
            inner.customMirror.children.first?.value as? CombineIdentifier == subscription.combineIdentifier
        )
    }

    @Test func theUpstreamSubscriberDescribesItselfAsFlatMap() throws {
        var feeder: AnySubscriber<Child, TestError>?
        let recorder = CombiningRecordingPublisher<Child, TestError> { feeder = $0 }
        let downstream = TestSubscriber<Int, TestError>()
        defer { downstream.cancel() }
        recorder.flatMap { $0 }.subscribe(downstream)
        let subscriber = try #require(feeder)
        #expect(subscriber.description == "FlatMap")
        #expect(subscriber.customMirror.children.isEmpty)
        #expect(subscriber.playgroundDescription as? String == "FlatMap")
        // As in Combine, where one object is both: the inner subscribers' parentSubscription names it.
        #expect(subscriber.combineIdentifier == downstream.subscription?.combineIdentifier)
    }

    @Test func storesItsParameters() {
        let upstream = Upstream()
        let child = Child()
        let flatMap = upstream.flatMap(maxPublishers: .max(3)) { _ in child }
        #expect(flatMap.upstream === upstream)
        #expect(flatMap.maxPublishers == .max(3))
        #expect(flatMap.transform(Child()) === child)
    }

    @Test func overloadForAnUpstreamThatCannotFail() {
        let upstream = TestPublisher<Int, Never>()
        let child = Child()
        let flatMap: Publishers.FlatMap<Child, Publishers.SetFailureType<TestPublisher<Int, Never>, TestError>> =
            upstream.flatMap { _ in child }
        #expect(flatMap.upstream.upstream === upstream)
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        flatMap.subscribe(subscriber)
        upstream.send(1)
        child.send(10)
        upstream.send(completion: .finished)
        child.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("FlatMap"), .value(10), .failure(.oops)])
    }

    @Test func overloadForInnersThatCannotFail() {
        let upstream = TestPublisher<Int, TestError>()
        let child = TestPublisher<Int, Never>()
        let flatMap:
            Publishers.FlatMap<
                Publishers.SetFailureType<TestPublisher<Int, Never>, TestError>, TestPublisher<Int, TestError>
            > =
                upstream.flatMap { _ in child }
        #expect(flatMap.upstream === upstream)
        #expect(flatMap.transform(0).upstream === child)
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        flatMap.subscribe(subscriber)
        upstream.send(1)
        child.send(10)
        child.send(completion: .finished)
        upstream.send(completion: .failure(.other))
        #expect(subscriber.events == [.subscription("FlatMap"), .value(10), .failure(.other)])
    }

    @Test func overloadWhenNeitherCanFail() {
        let upstream = TestPublisher<Int, Never>()
        let child = TestPublisher<Int, Never>()
        let flatMap: Publishers.FlatMap<TestPublisher<Int, Never>, TestPublisher<Int, Never>> =
            upstream.flatMap { _ in child }
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        flatMap.subscribe(subscriber)
        upstream.send(1)
        child.send(10)
        child.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("FlatMap"), .value(10), .finished])
    }

    @Test func synchronousInnersDoNotGrowTheStack() {
        let count = 60_000
        let upstream = CombiningSyncSequence<Int, Never>([0, 1])
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream
            .flatMap(maxPublishers: .max(1)) {
                CombiningSyncSequence<Int, Never>(Array(($0 * count)..<($0 * count + count)))
            }
            .subscribe(subscriber)
        #expect(subscriber.values == Array(0..<(2 * count)))
        #expect(subscriber.events.last == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(upstream.requests == [.max(1), .max(1), .max(1)])
    }

    // MARK: Concurrency

    @Test func innersSendingFromManyThreadsReachAOneAtATimeSubscriberSerially() {
        let sources = 4
        let perSource = 2_000
        let upstream = TestPublisher<Int, TestError>()
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(1), onValue: { _ in .max(1) }, onCompletion: { _ in done.signal() }
        )
        defer { subscriber.cancel() }
        let children = (0..<sources).map { source in
            CombiningPacedPublisher<Int, TestError>(Array((source * perSource)..<(source * perSource + perSource)))
        }
        upstream.flatMap { children[$0] }.subscribe(subscriber)
        for source in 0..<sources {
            upstream.send(source)
        }
        upstream.send(completion: .finished)
        #expect(combiningAwait(done))
        let values = subscriber.values
        #expect(values.count == sources * perSource)
        #expect(Set(values).count == sources * perSource)
        #expect(combiningPerSourceOrderHolds(values, stride: perSource))
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
        #expect(subscriber.events.last == .finished)
    }

    @Test func maxPublishersHoldsWithInnersAndUpstreamOnOtherThreads() {
        let sources = 6
        let perSource = 500
        let children = (0..<sources).map { source in
            CombiningPacedPublisher<Int, Never>(Array((source * perSource)..<(source * perSource + perSource)))
        }
        let upstream = CombiningPacedPublisher<Int, Never>(Array(0..<sources))
        let done = DispatchSemaphore(value: 0)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1), onValue: { _ in .max(1) }, onCompletion: { _ in done.signal() }
        )
        defer { subscriber.cancel() }
        let live = ConcurrencyGauge()
        upstream
            .flatMap(maxPublishers: .max(2)) { index in
                live.enter()
                return children[index].handleCompletion { live.leave() }
            }
            .subscribe(subscriber)
        #expect(combiningAwait(done))
        #expect(subscriber.values.count == sources * perSource)
        #expect(combiningPerSourceOrderHolds(subscriber.values, stride: perSource))
        #expect(subscriber.demandViolations == 0)
        #expect(live.peak <= 2)
        #expect(subscriber.events.last == .finished)
    }

    @Test func concurrentRequestsAndCancelAreSafe() {
        for _ in 0..<50 {
            let upstream = TestPublisher<Int, TestError>()
            let children = (0..<3).map { source in
                CombiningPacedPublisher<Int, TestError>(Array((source * 100)..<(source * 100 + 100)))
            }
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
            upstream.flatMap { children[$0] }.subscribe(subscriber)
            for source in 0..<3 { upstream.send(source) }
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for _ in 0..<25 {
                    subscriber.request(.max(1))
                }
                if worker == 3 { subscriber.cancel() }
            }
            let values = subscriber.values
            #expect(subscriber.demandViolations == 0)
            #expect(combiningPerSourceOrderHolds(values, stride: 100))
            #expect(subscriber.completion == nil)
        }
    }
}

/// Counts how many inner publishers are live at once, and the peak.
private final class ConcurrencyGauge: @unchecked Sendable {
    private let lock = Lock()
    private var current = 0
    private var highest = 0

    var peak: Int { lock.withLock { highest } }

    func enter() {
        lock.withLock {
            current += 1
            highest = max(highest, current)
        }
    }

    func leave() {
        lock.withLock { current -= 1 }
    }
}

extension CombiningPacedPublisher {
    /// This publisher, calling `action` just before its completion reaches the subscriber.
    fileprivate func handleCompletion(_ action: @escaping () -> Void) -> AnyPublisher<Output, Failure> {
        CompletionTap(upstream: self, action: action).eraseToAnyPublisher()
    }
}

private struct CompletionTap<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure
    let upstream: Upstream
    let action: () -> Void

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let action = action
        upstream.subscribe(
            AnySubscriber<Output, Failure>(
                receiveSubscription: { subscriber.receive(subscription: $0) },
                receiveValue: { subscriber.receive($0) },
                receiveCompletion: {
                    action()
                    subscriber.receive(completion: $0)
                }
            ))
    }
}
