import Dispatch
import Testing

@testable import Ripple

@Suite("ShareReplay")
struct ShareReplayTests {

    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().share(replay: 1).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func lateSubscriberGetsTheLastValuesThenLiveOnes() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 2)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        shared.subscribe(first)
        #expect(upstream.calls == [.request(.unlimited)])
        for value in 1...5 { upstream.send(value) }
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        shared.subscribe(late)
        upstream.send(6)
        upstream.send(completion: .finished)
        #expect(
            first.events == [
                .subscription("ShareReplay"), .value(1), .value(2), .value(3), .value(4), .value(5), .value(6),
                .finished,
            ])
        #expect(late.events == [.subscription("ShareReplay"), .value(4), .value(5), .value(6), .finished])
        #expect(upstream.subscriptions == 1)
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func replayRespectsEachSubscribersDemand() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 3)
        let keeper = TestSubscriber<Int, Never>()
        defer { keeper.cancel() }
        shared.subscribe(keeper)
        for value in 1...5 { upstream.send(value) }
        let single = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { single.cancel() }
        shared.subscribe(single)
        #expect(single.events == [.subscription("ShareReplay"), .value(3)])
        single.request(.max(1))
        #expect(single.values == [3, 4])
        upstream.send(6)  // pending for `single`: 5, 6
        single.request(.max(3))
        #expect(single.values == [3, 4, 5, 6])
        upstream.send(7)
        upstream.send(8)
        #expect(single.values == [3, 4, 5, 6, 7])
        let stepper = TestSubscriber<Int, Never>.oneAtATime()
        defer { stepper.cancel() }
        shared.subscribe(stepper)
        upstream.send(9)
        #expect(stepper.values == [6, 7, 8, 9])
        #expect(single.demandViolations == 0)
        #expect(stepper.demandViolations == 0)
        #expect(keeper.values == Array(1...9))
    }

    @Test func valuesWithoutDemandKeepOnlyTheNewestReplayCount() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 2)
        let idle = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { idle.cancel() }
        let keeper = TestSubscriber<Int, Never>()
        defer { keeper.cancel() }
        shared.subscribe(keeper)
        shared.subscribe(idle)
        for value in 1...5 { upstream.send(value) }
        #expect(idle.events == [.subscription("ShareReplay")])
        idle.request(.max(1))
        #expect(idle.values == [4])
        idle.request(.unlimited)
        #expect(idle.values == [4, 5])
        upstream.send(6)
        #expect(idle.values == [4, 5, 6])
        #expect(keeper.values == Array(1...6))
    }

    @Test func subscriberAfterCompletionGetsTheReplayThenTheCompletionWithoutResubscribing() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 2)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        shared.subscribe(first)
        for value in 1...3 { upstream.send(value) }
        upstream.send(completion: .finished)
        first.cancel()
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        shared.subscribe(late)
        #expect(late.events == [.subscription("ShareReplay"), .value(2), .value(3), .finished])
        let slow = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { slow.cancel() }
        shared.subscribe(slow)
        #expect(slow.events == [.subscription("ShareReplay"), .value(2)])
        slow.request(.max(1))
        #expect(slow.events == [.subscription("ShareReplay"), .value(2), .value(3), .finished])
        late.cancel()
        slow.cancel()
        shared.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriptions == 1)
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func failureIsReplayedAfterTheValues() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share(replay: 1)
        let first = TestSubscriber<Int, TestError>()
        defer { first.cancel() }
        shared.subscribe(first)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.oops))
        upstream.send(3)
        let late = TestSubscriber<Int, TestError>()
        defer { late.cancel() }
        shared.subscribe(late)
        #expect(first.events == [.subscription("ShareReplay"), .value(1), .value(2), .failure(.oops)])
        #expect(late.events == [.subscription("ShareReplay"), .value(2), .failure(.oops)])
        #expect(upstream.subscriptions == 1)
    }

    @Test func completionWaitsForPendingValuesToBeRequested() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share(replay: 3)
        let slow = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { slow.cancel() }
        shared.subscribe(slow)
        for value in 1...3 { upstream.send(value) }
        upstream.send(completion: .failure(.other))
        #expect(slow.events == [.subscription("ShareReplay"), .value(1)])
        slow.request(.max(1))
        #expect(slow.events == [.subscription("ShareReplay"), .value(1), .value(2)])
        slow.request(.max(5))
        #expect(slow.events == [.subscription("ShareReplay"), .value(1), .value(2), .value(3), .failure(.other)])
        #expect(slow.demandViolations == 0)
    }

    @Test func subscriberWithoutDemandAfterAnEmptyCompletionGetsItAtOnce() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 3)
        shared.subscribe(TestSubscriber<Int, Never>())
        upstream.send(completion: .finished)
        let late = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { late.cancel() }
        shared.subscribe(late)
        #expect(late.events == [.subscription("ShareReplay"), .finished])
    }

    @Test func lastCancelDisconnectsAndReconnectionKeepsTheRememberedValues() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 1)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        shared.subscribe(first)
        shared.subscribe(second)
        upstream.send(1)
        first.cancel()
        #expect(upstream.calls == [.request(.unlimited)])
        second.cancel()
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(2)
        let third = TestSubscriber<Int, Never>()
        defer { third.cancel() }
        shared.subscribe(third)
        #expect(upstream.subscriptions == 2)
        #expect(upstream.calls == [.request(.unlimited), .cancel, .request(.unlimited)])
        upstream.send(3)
        #expect(third.events == [.subscription("ShareReplay"), .value(1), .value(3)])
        #expect(first.events == [.subscription("ShareReplay"), .value(1)])
        third.cancel()
        #expect(upstream.calls == [.request(.unlimited), .cancel, .request(.unlimited), .cancel])
    }

    @Test func upstreamIsRequestedOnlyOnceSomeoneHasDemand() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 2)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        shared.subscribe(subscriber)
        #expect(upstream.subscriptions == 1)
        #expect(upstream.calls.isEmpty)
        subscriber.request(.max(1))
        #expect(upstream.calls == [.request(.unlimited)])
        subscriber.request(.max(1))
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func replayZeroBehavesAsShare() {
        func script<P: Publisher>(_ make: (TestPublisher<Int, Never>) -> P) -> (
            [[Int]], [Bool], [TestPublisher<Int, Never>.Call]
        )
        where P.Output == Int, P.Failure == Never {
            let upstream = TestPublisher<Int, Never>()
            let shared = make(upstream)
            let a = TestSubscriber<Int, Never>(initialDemand: .max(2))
            let b = TestSubscriber<Int, Never>(initialDemand: nil)
            shared.subscribe(a)
            upstream.send(1)
            shared.subscribe(b)
            upstream.send(2)
            b.request(.max(1))
            upstream.send(3)
            upstream.send(4)
            a.cancel()
            b.cancel()
            let c = TestSubscriber<Int, Never>.oneAtATime()
            shared.subscribe(c)
            upstream.send(5)
            upstream.send(completion: .finished)
            let d = TestSubscriber<Int, Never>()
            shared.subscribe(d)
            let all = [a, b, c, d]
            return (all.map(\.values), all.map { $0.completion == .finished }, upstream.calls)
        }
        let share = script { $0.share() }
        let replayZero = script { $0.share(replay: 0) }
        #expect(share.0 == replayZero.0)
        #expect(share.1 == replayZero.1)
        #expect(share.2 == replayZero.2)
        #expect(replayZero.0 == [[1, 2], [3], [5], []])
        #expect(replayZero.1 == [false, false, true, true])
    }

    @Test func synchronousUpstreamIsReplayedToTheSecondSubscriber() {
        let upstream = MulticastingSyncPublisher([1, 2, 3])
        let shared = upstream.share(replay: 2)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        shared.subscribe(first)
        shared.subscribe(second)
        #expect(first.events == [.subscription("ShareReplay"), .value(1), .value(2), .value(3), .finished])
        #expect(second.events == [.subscription("ShareReplay"), .value(2), .value(3), .finished])
        #expect(upstream.subscriptions == 1)
    }

    @Test func cancelStopsDeliveryAtOnceAlsoFromInsideReceive() {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 3)
        let keeper = TestSubscriber<Int, Never>()
        defer { keeper.cancel() }
        shared.subscribe(keeper)
        for value in 1...3 { upstream.send(value) }
        nonisolated(unsafe) var subscriber: TestSubscriber<Int, Never>!
        subscriber = TestSubscriber(onValue: { value in
            if value == 2 { subscriber.cancel() }
            return .none
        })
        shared.subscribe(subscriber)
        upstream.send(4)
        #expect(subscriber.values == [1, 2])
        let other = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { other.cancel() }
        shared.subscribe(other)
        other.cancel()
        other.cancel()
        other.request(.max(3))
        upstream.send(5)
        #expect(other.values == [2])
        #expect(keeper.values == [1, 2, 3, 4, 5])
    }

    @Test func requestAndCancelInsideReceiveSubscriptionAreHonouredAfterItReturns() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share(replay: 2)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        shared.subscribe(first)
        upstream.send(1)
        upstream.send(2)
        nonisolated(unsafe) var received: [Int] = []
        nonisolated(unsafe) var subscribed = false
        nonisolated(unsafe) var kept: (any Subscription)?
        defer { kept?.cancel() }
        shared.subscribe(
            AnySubscriber<Int, Never>(
                receiveSubscription: { subscription in
                    subscription.request(.unlimited)
                    #expect(received.isEmpty)
                    subscribed = true
                    kept = subscription
                },
                receiveValue: { value in
                    #expect(subscribed)
                    received.append(value)
                    return .none
                }
            ))
        #expect(received == [1, 2])
        nonisolated(unsafe) var cancelledGot: [Int] = []
        shared.subscribe(
            AnySubscriber<Int, Never>(
                receiveSubscription: { subscription in
                    subscription.request(.unlimited)
                    subscription.cancel()
                },
                receiveValue: { value in
                    cancelledGot.append(value)
                    return .none
                }
            ))
        upstream.send(3)
        #expect(cancelledGot.isEmpty)
    }

    @Test func reentrantSendsKeepTheOrderForEverySubscriber() {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 1)
        let echoing = TestSubscriber<Int, Never>(onValue: { value in
            if value < 3 { upstream.send(value + 10) }
            return .none
        })
        defer { echoing.cancel() }
        let observer = TestSubscriber<Int, Never>()
        defer { observer.cancel() }
        shared.subscribe(echoing)
        shared.subscribe(observer)
        upstream.send(1)
        upstream.send(2)
        #expect(echoing.values == [1, 11, 2, 12])
        #expect(observer.values == [1, 11, 2, 12])
    }

    @Test func valuesArrivingDuringDeliveryNeverExceedDemand() {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 1)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(2),
            onValue: { value in
                if value == 1 {
                    upstream.send(2)
                    upstream.send(3)
                    upstream.send(4)
                }
                return .none
            })
        defer { subscriber.cancel() }
        shared.subscribe(subscriber)
        upstream.send(1)
        #expect(subscriber.values == [1, 2])
        // 3 was dropped for this subscriber: only the newest `replay` (1) value without demand is kept.
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 4])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func longReplayToAOneAtATimeSubscriberDoesNotGrowTheStack() {
        let upstream = PassthroughSubject<Int, Never>()
        let count = 20_000
        let shared = upstream.share(replay: count)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        shared.subscribe(first)
        for value in 0..<count { upstream.send(value) }
        let stepper = TestSubscriber<Int, Never>.oneAtATime()
        defer { stepper.cancel() }
        shared.subscribe(stepper)
        #expect(stepper.values.count == count)
        #expect(stepper.values.last == count - 1)
        #expect(stepper.demandViolations == 0)
    }

    @Test func equatableByIdentityAndReplayIsNeverNegative() {
        let upstream = TestPublisher<Int, Never>()
        let first = upstream.share(replay: 1)
        let second = upstream.share(replay: 1)
        #expect(first == first)
        #expect(first != second)
        #expect(first.upstream === upstream)
        #expect(first.replay == 1)
        #expect(upstream.share(replay: -3).replay == 0)
    }

    @Test func concurrentSendersSubscribersAndCancels() {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 4)
        let stable = TestSubscriber<Int, Never>()
        defer { stable.cancel() }
        let stableStepper = TestSubscriber<Int, Never>.oneAtATime()
        defer { stableStepper.cancel() }
        shared.subscribe(stable)
        shared.subscribe(stableStepper)
        let perThread = 2_000
        let gauge = MulticastingConcurrencyGauge()
        let watched = TestSubscriber<Int, Never>(onValue: { _ in
            gauge.enter()
            gauge.leave()
            return .none
        })
        defer { watched.cancel() }
        shared.subscribe(watched)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread {
                if thread < 2 {
                    upstream.send(thread * perThread + index)
                } else if index % 2 == 0 {
                    let subscriber = TestSubscriber<Int, Never>.oneAtATime()
                    shared.subscribe(subscriber)
                    subscriber.cancel()
                    #expect(subscriber.demandViolations == 0)
                    #expect(subscriber.orderViolations == 0)
                    #expect(multicastingEachSenderInOrder(subscriber.values, stride: perThread))
                } else {
                    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
                    shared.subscribe(subscriber)
                    subscriber.request(.max(2))
                    #expect(subscriber.values.count <= 3)
                    subscriber.cancel()
                    #expect(subscriber.demandViolations == 0)
                }
            }
        }
        upstream.send(completion: .finished)
        for subscriber in [stable, stableStepper, watched] {
            #expect(subscriber.values.count == 2 * perThread)
            #expect(multicastingEachSenderInOrder(subscriber.values, stride: perThread))
            #expect(subscriber.completion == .finished)
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
        }
        #expect(gauge.maximumConcurrency == 1)
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        shared.subscribe(late)
        #expect(late.values == Array(stable.values.suffix(4)))
        #expect(late.completion == .finished)
    }

    @Test func concurrentRequestsFromOtherThreadsWhileValuesArrive() {
        for _ in 0..<20 {
            let upstream = PassthroughSubject<Int, Never>()
            let shared = upstream.share(replay: 8)
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            defer { subscriber.cancel() }
            shared.subscribe(subscriber)
            subscriber.request(.max(1))
            DispatchQueue.concurrentPerform(iterations: 3) { thread in
                for index in 0..<500 {
                    if thread == 0 {
                        upstream.send(index)
                    } else {
                        subscriber.request(.max(1))
                    }
                }
            }
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.values == subscriber.values.sorted())
            #expect(subscriber.values.count <= 1_001)
            // Whatever was not yet delivered is either pending (at most `replay`) or dropped.
            let before = subscriber.values.count
            subscriber.request(.unlimited)
            #expect(subscriber.values.count - before <= 8)
            #expect(subscriber.values.last == 499)
        }
    }
}
