import Foundation
import RippleTestSupport
import Testing

@testable import Ripple

@Suite("Zip")
struct ZipTests {
    /// `arity` recording upstreams zipped together into `subscriber`.
    private func zipped(_ arity: Int, into subscriber: JoiningSubscriber) -> [JoiningUpstream] {
        let lanes = (0..<arity).map { _ in JoiningUpstream() }
        switch arity {
        case 2: lanes[0].zip(lanes[1]).subscribeJoined(subscriber)
        case 3: lanes[0].zip(lanes[1], lanes[2]).subscribeJoined(subscriber)
        default: lanes[0].zip(lanes[1], lanes[2], lanes[3]).subscribeJoined(subscriber)
        }
        return lanes
    }

    // MARK: Values

    @Test func pairsValuesInOrderAndFinishesWhenAFinishedUpstreamRunsOut() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)

        #expect(a.send(1) == .none)
        #expect(a.send(2) == .none)
        #expect(a.send(3) == .none)
        #expect(b.send(10) == .none)
        #expect(b.send(20) == .none)
        a.send(completion: .finished)
        #expect(subscriber.completion == nil, "a still has 3 waiting")
        #expect(b.send(30) == .none)
        b.send(40)
        b.send(completion: .finished)

        #expect(
            subscriber.events == [
                .subscription("Zip"), .value([1, 10]), .value([2, 20]), .value([3, 30]), .finished,
            ])
        #expect(a.calls == [.request(.unlimited)], "a finished by itself and is not cancelled")
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test(arguments: [2, 3, 4])
    func groupsEveryUpstream(arity: Int) {
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        let lanes = zipped(arity, into: subscriber)
        for (lane, upstream) in lanes.enumerated().reversed() {
            for value in 0..<3 { upstream.send(10 * lane + value) }
        }
        for upstream in lanes { upstream.send(completion: .finished) }

        let expected = (0..<3).map { value in (0..<arity).map { 10 * $0 + value } }
        #expect(subscriber.events == [.subscription("Zip")] + expected.map { .value($0) } + [.finished])
    }

    @Test func publisherTypesAndEquality() {
        let one = JoiningEquatablePublisher(tag: 1)
        let two = JoiningEquatablePublisher(tag: 2)
        let pair: Publishers.Zip<JoiningEquatablePublisher, JoiningEquatablePublisher> = one.zip(two)
        #expect(pair == Publishers.Zip(one, two))
        #expect(pair != Publishers.Zip(two, two))
        #expect(pair.a == one && pair.b == two)
        let triple = one.zip(two, one)
        #expect(triple == Publishers.Zip3(one, two, one))
        #expect(triple != Publishers.Zip3(one, one, one))
        #expect(triple.c == one)
        let quadruple = one.zip(two, one, two)
        #expect(quadruple == Publishers.Zip4(one, two, one, two))
        #expect(quadruple != Publishers.Zip4(one, two, two, two))
        #expect(quadruple.d == two)
    }

    // MARK: Demand

    @Test(arguments: [Subscribers.Demand.unlimited, .max(1)])
    func downstreamRequestsReachEveryUpstream(initialDemand: Subscribers.Demand) {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: nil)
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        #expect(a.calls.isEmpty && b.calls.isEmpty)

        subscriber.request(initialDemand)
        #expect(a.calls == [.request(initialDemand)])
        #expect(b.calls == [.request(initialDemand)])
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .none)
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 1])])
        subscriber.request(.max(2))
        #expect(a.calls == [.request(initialDemand), .request(.max(2))])
        #expect(b.calls == [.request(initialDemand), .request(.max(2))])
    }

    @Test(arguments: [Subscribers.Demand.unlimited, .max(10)])
    func aRequestMadeWhileReceivingIsReturnedToTheServedUpstream(initialDemand: Subscribers.Demand) {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let box = LockedBox<(any Subscription)?>(nil)
        let subscriber = JoiningSubscriber(
            initialDemand: initialDemand,
            onValue: { _ in
                box.value?.request(.max(666))
                return .none
            })
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        box.value = subscriber.subscription

        #expect(a.send(1) == .none)
        #expect(b.send(1) == .max(666))
        #expect(a.calls == [.request(initialDemand), .request(.max(666))])
        #expect(b.calls == [.request(initialDemand)])
    }

    @Test(arguments: [2, 3, 4])
    func extraDemandReturnedByTheDownstreamReachesEveryUpstream(arity: Int) {
        let subscriber = JoiningSubscriber(initialDemand: .max(1), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        let lanes = zipped(arity, into: subscriber)
        for (index, lane) in lanes.enumerated() {
            let demand = lane.send(1)
            #expect(demand == (index == arity - 1 ? .max(1) : .none))
        }
        #expect(subscriber.values == [Array(repeating: 1, count: arity)])
        for lane in lanes.dropLast() {
            #expect(lane.calls == [.request(.max(1)), .request(.max(1))])
        }
        #expect(lanes[arity - 1].calls == [.request(.max(1))])
    }

    @Test func valuesBeyondDemandWaitForRequests() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: .max(1))
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)

        a.send(100)
        b.send(1)
        a.send(200)
        a.send(300)
        b.send(2)
        #expect(subscriber.values == [[100, 1]], "a complete pair waits for demand")
        b.send(3)
        a.send(completion: .finished)
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[100, 1], [200, 2]])
        subscriber.request(.max(5))
        #expect(
            subscriber.events == [
                .subscription("Zip"), .value([100, 1]), .value([200, 2]), .value([300, 3]), .finished,
            ])
        #expect(subscriber.demandViolations == 0)
        #expect(b.calls == [.request(.max(1)), .request(.max(1)), .request(.max(5)), .cancel])
        #expect(a.calls == [.request(.max(1))], "a had finished before the later requests")
    }

    @Test func oneAtATimeSubscriberPairsSynchronousSources() {
        let a = JoiningSequencePublisher([0, 1, 2])
        let b = JoiningSequencePublisher([10, 20, 30, 40])
        let subscriber = JoiningSubscriber.oneAtATime()
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)

        #expect(
            subscriber.events == [
                .subscription("Zip"), .value([0, 10]), .value([1, 20]), .value([2, 30]), .finished,
            ])
        #expect(subscriber.demandViolations == 0)
        #expect(a.requests.allSatisfy { $0 == .max(1) })
        #expect(b.requests.allSatisfy { $0 == .max(1) })
    }

    @Test func longSynchronousSourcesDoNotGrowTheStack() {
        let count = 100_000
        let a = JoiningSequencePublisher(Array(0..<count))
        let b = JoiningSequencePublisher(Array(0..<count + 5))
        let c = JoiningSequencePublisher(Array(0..<count + 1))
        let subscriber = JoiningSubscriber.oneAtATime()
        defer { subscriber.cancel() }
        a.zip(b, c).subscribeJoined(subscriber)

        let values = subscriber.values
        #expect(values.count == count)
        #expect(values.last == [count - 1, count - 1, count - 1])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
    }

    // MARK: Re-entrance

    @Test func aValueSentFromInsideReceiveWaitsInItsQueue() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(onValue: { _ in
            #expect(a.send(1) == .none)
            return .none
        })
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        a.send(1)
        b.send(1)
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 1])])
    }

    @Test func groupsCompletedFromInsideReceiveAreDeliveredAfterItReturns() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let depth = JoiningCounter()
        let subscriber = JoiningSubscriber(onValue: { value in
            depth.enter()
            defer { depth.leave() }
            if value[0] < 3 {
                a.send(value[0] + 1)
                b.send(value[1] + 1)
            }
            return .none
        })
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        a.send(0)
        b.send(0)
        #expect(subscriber.values == [[0, 0], [1, 1], [2, 2], [3, 3]])
        #expect(depth.maximum == 1, "no delivery nested in another")
    }

    @Test func aFinishFromInsideReceiveComesAfterTheValue() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(onValue: { [unowned a] _ in
            a.send(completion: .finished)
            return .none
        })
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        a.send(1)
        a.send(1)
        b.send(1)
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 1])], "a still has a value waiting")
        b.send(2)
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 1]), .value([1, 2]), .finished])
        #expect(subscriber.orderViolations == 0)
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancelFromInsideReceiveStopsEverything() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let box = LockedBox<(any Subscription)?>(nil)
        let subscriber = JoiningSubscriber(onValue: { _ in
            box.value?.cancel()
            return .max(1)
        })
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        box.value = subscriber.subscription
        a.send(1)
        a.send(2)
        #expect(b.send(1) == .none)
        b.send(2)
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 1])])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    // MARK: Completion

    @Test(arguments: [2, 3, 4])
    func finishesAtOnceWhenAnUpstreamFinishesWithNothingWaiting(arity: Int) {
        for finishing in 0..<arity {
            let subscriber = JoiningSubscriber()
            let lanes = zipped(arity, into: subscriber)
            lanes[finishing].send(completion: .finished)
            #expect(subscriber.events == [.subscription("Zip"), .finished])
            for (index, lane) in lanes.enumerated() {
                #expect(lane.calls == (index == finishing ? [.request(.unlimited)] : [.request(.unlimited), .cancel]))
            }
        }
    }

    @Test(arguments: [2, 3, 4])
    func aFinishedUpstreamWithWaitingValuesKeepsTheStreamAlive(arity: Int) {
        for sending in 0..<arity {
            for finishing in 0..<arity {
                let subscriber = JoiningSubscriber()
                let lanes = zipped(arity, into: subscriber)
                lanes[sending].send(666)
                lanes[finishing].send(completion: .finished)
                if sending == finishing {
                    #expect(subscriber.events == [.subscription("Zip")])
                    for lane in lanes.indices where lane != finishing { lanes[lane].send(lane) }
                    let expected = (0..<arity).map { $0 == finishing ? 666 : $0 }
                    #expect(subscriber.events == [.subscription("Zip"), .value(expected), .finished])
                } else {
                    #expect(subscriber.events == [.subscription("Zip"), .finished])
                }
            }
        }
    }

    @Test func failsWithTheFirstFailureAndCancelsEveryUpstream() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let c = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.zip(b, c).subscribeJoined(subscriber)

        a.send(100)
        a.send(completion: .failure(.oops))
        b.send(1)
        c.send(1)
        b.send(completion: .failure(.other))
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Zip"), .failure(.oops)])
        #expect(a.calls == [.request(.unlimited), .cancel], "Combine cancels the failed upstream too")
        #expect(b.calls == [.request(.unlimited), .cancel])
        #expect(c.calls == [.request(.unlimited), .cancel])
    }

    @Test func laterCompletionsAreIgnored() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        a.send(completion: .finished)
        b.send(completion: .finished)
        a.send(completion: .failure(.oops))
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Zip"), .finished])
    }

    @Test func completionBeforeTheDownstreamIsSubscribedWaitsForIt() {
        let b = JoiningUpstream()
        let finishing = JoiningSubscriber()
        defer { finishing.cancel() }
        JoiningImmediatePublisher(completion: .finished).zip(b).subscribeJoined(finishing)
        #expect(finishing.events == [.subscription("Zip"), .finished])
        #expect(b.calls == [.cancel], "b subscribes after the finish and is cancelled at once")

        let c = JoiningUpstream()
        let failing = JoiningSubscriber()
        defer { failing.cancel() }
        c.zip(JoiningImmediatePublisher(completion: .failure(.oops))).subscribeJoined(failing)
        #expect(failing.events == [.subscription("Zip"), .failure(.oops)])
        #expect(c.calls == [.cancel])
    }

    // MARK: Cancellation and subscriptions

    @Test func cancelCancelsEveryUpstreamOnceAndStopsDelivery() throws {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        a.send(1)
        b.send(1)
        a.send(2)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.cancel()
        b.send(2)
        b.send(completion: .finished)
        subscription.request(.max(3))
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 1])])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test func lateAndDuplicateSubscriptions() {
        let a = JoiningUpstream()
        let b = JoiningLatePublisher()
        let subscriber = JoiningSubscriber(initialDemand: .max(2))
        defer { subscriber.cancel() }
        a.zip(b).subscribeJoined(subscriber)
        #expect(a.calls == [.request(.max(2))])

        b.attach()
        #expect(b.recorder.calls == [.request(.max(2))], "a late upstream gets the demand requested so far")
        b.attach()
        #expect(b.recorder.calls == [.request(.max(2)), .cancel])
        a.send(5)
        #expect(b.send(6) == .none)
        #expect(subscriber.values == [[5, 6]])
        subscriber.cancel()
        #expect(b.recorder.calls == [.request(.max(2)), .cancel, .cancel])
        b.attach()
        #expect(b.recorder.calls.count == 4, "a subscription arriving after cancel is cancelled")
    }

    @Test func upstreamsSeeASubscriberNamedZip() {
        let a = JoiningLatePublisher()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.zip(JoiningUpstream(), JoiningUpstream()).subscribeJoined(subscriber)
        #expect(a.subscriberDescription == "Zip")
    }

    @Test func nothingIsKeptAliveAfterCompletionOrCancel() {
        weak var finished: JoiningReleasingSubscriber<(Int, Int, Int)>?
        weak var cancelled: JoiningReleasingSubscriber<(Int, Int)>?
        do {
            let finishing = JoiningReleasingSubscriber<(Int, Int, Int)>()
            finished = finishing
            let (a, b) = (JoiningSequencePublisher([1, 2]), JoiningSequencePublisher([3]))
            a.zip(b, JoiningSequencePublisher([4])).subscribe(finishing)
            #expect(finishing.count == 1 && finishing.completed)
            let cancelling = JoiningReleasingSubscriber<(Int, Int)>(cancelAfter: 1)
            cancelled = cancelling
            let source = JoiningSequencePublisher(Array(0..<10))
            source.zip(source).subscribe(cancelling)
            #expect(cancelling.count == 1 && !cancelling.completed)
        }
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test func requestingNoDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = JoiningSubscriber(initialDemand: nil)
            JoiningUpstream().zip(JoiningUpstream()).subscribeJoined(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func subscriptionDescribesItself() throws {
        let subscriber = JoiningSubscriber(initialDemand: .max(3))
        defer { subscriber.cancel() }
        _ = zipped(2, into: subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Zip")
        #expect(Mirror(reflecting: subscription).children.first?.label == "demand")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Zip")
    }

    // MARK: Concurrency

    @Test func oneAtATimeSubscriberUnderConcurrentUpstreams() {
        let perLane = 3_000
        let subscriber = JoiningSubscriber.oneAtATime()
        defer { subscriber.cancel() }
        let lanes = zipped(4, into: subscriber)

        joiningConcurrently(lanes.count) { index in
            for value in 0..<perLane { lanes[index].send(value) }
            lanes[index].send(completion: .finished)
        }

        #expect(subscriber.values == (0..<perLane).map { Array(repeating: $0, count: 4) })
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func concurrentRequestsReleaseExactlyTheWaitingGroups() {
        let perLane = 3_000
        let subscriber = JoiningSubscriber(initialDemand: nil)
        defer { subscriber.cancel() }
        let lanes = zipped(3, into: subscriber)

        joiningConcurrently(lanes.count + 2) { index in
            if index < lanes.count {
                for value in 0..<perLane { lanes[index].send(value) }
                lanes[index].send(completion: .finished)
            } else {
                for _ in 0..<perLane / 2 { subscriber.request(.max(1)) }
            }
        }

        #expect(subscriber.values == (0..<perLane).map { Array(repeating: $0, count: 3) })
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
        for lane in lanes {
            #expect(lane.requested <= .max(perLane), "part of the demand is returned from receive instead")
        }
    }

    @Test func concurrentSendsRequestsAndCancel() {
        for _ in 0..<50 {
            let subscriber = JoiningSubscriber(initialDemand: .max(1))
            let lanes = zipped(2, into: subscriber)
            joiningConcurrently(4) { index in
                switch index {
                case 0, 1:
                    for value in 0..<200 { lanes[index].send(value) }
                    lanes[index].send(completion: .finished)
                case 2: for _ in 0..<200 { subscriber.request(.max(1)) }
                default: subscriber.cancel()
                }
            }
            let values = subscriber.values
            #expect(values == (0..<values.count).map { [$0, $0] })
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
            #expect(subscriber.completion == nil || subscriber.completion == .finished)
        }
    }
}

/// Tracks how deeply a callback is nested in itself.
final class JoiningCounter: @unchecked Sendable {
    private let lock = Lock()
    private var current = 0
    private var deepest = 0

    func enter() {
        lock.withLock {
            current += 1
            deepest = max(deepest, current)
        }
    }

    func leave() { lock.withLock { current -= 1 } }

    var maximum: Int { lock.withLock { deepest } }
}
