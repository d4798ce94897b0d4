import Foundation
import RippleTestSupport
import Testing

@testable import Ripple

@Suite("CombineLatest")
struct CombineLatestTests {
    // MARK: Values

    @Test func emitsTheLatestPairOnceBothHavePublished() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)

        #expect(a.send(1) == .none)
        #expect(a.send(2) == .none)
        #expect(b.send(10) == .none)
        #expect(a.send(3) == .none)
        #expect(a.send(45) == .none)
        #expect(b.send(22) == .none)
        a.send(completion: .finished)
        #expect(subscriber.completion == nil, "one upstream is still running")
        b.send(30)
        b.send(completion: .finished)

        #expect(
            subscriber.events == [
                .subscription("CombineLatest"),
                .value([2, 10]), .value([3, 10]), .value([45, 10]), .value([45, 22]), .value([45, 30]),
                .finished,
            ])
        #expect(a.calls == [.request(.unlimited)])
        #expect(b.calls == [.request(.unlimited)])
    }

    @Test func threeAndFourUpstreams() {
        let (a, b, c, d) = (JoiningUpstream(), JoiningUpstream(), JoiningUpstream(), JoiningUpstream())
        let three = JoiningSubscriber()
        defer { three.cancel() }
        a.combineLatest(b, c).subscribeJoined(three)
        let (e, f, g, h) = (JoiningUpstream(), JoiningUpstream(), JoiningUpstream(), JoiningUpstream())
        let four = JoiningSubscriber()
        defer { four.cancel() }
        e.combineLatest(f, g, h).subscribeJoined(four)

        a.send(1)
        a.send(2)
        b.send(2)
        c.send(9)
        a.send(3)
        b.send(12)
        a.send(13)
        c.send(19)
        e.send(1)
        e.send(2)
        f.send(2)
        g.send(9)
        h.send(1)
        e.send(3)
        f.send(12)
        g.send(19)
        h.send(4)
        for upstream in [a, b, c, d, e, f, g, h] { upstream.send(completion: .finished) }

        #expect(
            three.events == [
                .subscription("CombineLatest"),
                .value([2, 2, 9]), .value([3, 2, 9]), .value([3, 12, 9]), .value([13, 12, 9]), .value([13, 12, 19]),
                .finished,
            ])
        #expect(
            four.events == [
                .subscription("CombineLatest"),
                .value([2, 2, 9, 1]), .value([3, 2, 9, 1]), .value([3, 12, 9, 1]), .value([3, 12, 19, 1]),
                .value([3, 12, 19, 4]),
                .finished,
            ])
        #expect(d.calls.isEmpty, "d was never subscribed to")
    }

    @Test func publisherTypesAndEquality() {
        let one = JoiningEquatablePublisher(tag: 1)
        let two = JoiningEquatablePublisher(tag: 2)
        typealias Pair = Publishers.CombineLatest<JoiningEquatablePublisher, JoiningEquatablePublisher>
        let pair: Pair = one.combineLatest(two)
        #expect(pair == Publishers.CombineLatest(one, two))
        #expect(pair != Publishers.CombineLatest(one, one))
        #expect(pair.a == one && pair.b == two)
        let triple = one.combineLatest(two, one)
        #expect(triple == Publishers.CombineLatest3(one, two, one))
        #expect(triple != Publishers.CombineLatest3(one, two, two))
        #expect(triple.c == one)
        let quadruple = one.combineLatest(two, one, two)
        #expect(quadruple == Publishers.CombineLatest4(one, two, one, two))
        #expect(quadruple != Publishers.CombineLatest4(one, two, one, one))
        #expect(quadruple.d == two)
    }

    // MARK: Demand

    @Test(arguments: [Subscribers.Demand.unlimited, .max(1)])
    func downstreamRequestsReachEveryUpstream(initialDemand: Subscribers.Demand) throws {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: nil)
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        #expect(a.calls.isEmpty && b.calls.isEmpty)

        subscriber.request(initialDemand)
        #expect(a.calls == [.request(initialDemand)])
        #expect(b.calls == [.request(initialDemand)])
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .none)
        #expect(a.calls == [.request(initialDemand)])
        #expect(subscriber.events == [.subscription("CombineLatest"), .value([1, 1])])

        subscriber.request(.max(2))
        #expect(a.calls == [.request(initialDemand), .request(.max(2))])
        #expect(b.calls == [.request(initialDemand), .request(.max(2))])
        let description = String(describing: try #require(subscriber.subscription))
        #expect(description == "CombineLatest")
    }

    @Test func aRequestMadeWhileReceivingGoesToEveryUpstream() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let box = LockedBox<(any Subscription)?>(nil)
        let subscriber = JoiningSubscriber(
            initialDemand: .max(10),
            onValue: { _ in
                box.value?.request(.max(666))
                return .none
            })
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        box.value = subscriber.subscription

        #expect(a.send(1) == .none)
        #expect(b.send(1) == .none)
        #expect(a.calls == [.request(.max(10)), .request(.max(666))])
        #expect(b.calls == [.request(.max(10)), .request(.max(666))])
    }

    @Test func extraDemandReturnedByTheDownstreamReachesEveryUpstream() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let c = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: .max(1), onValue: { _ in .max(2) })
        defer { subscriber.cancel() }
        a.combineLatest(b, c).subscribeJoined(subscriber)

        #expect(a.send(1) == .none)
        #expect(c.send(1) == .none)
        #expect(b.send(1) == .max(2), "the upstream whose value was delivered gets it back from receive")
        #expect(a.calls == [.request(.max(1)), .request(.max(2))])
        #expect(b.calls == [.request(.max(1))])
        #expect(c.calls == [.request(.max(1)), .request(.max(2))])
    }

    @Test func valuesBeyondDemandOnlyReplaceTheLatestValue() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: .max(1))
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)

        a.send(100)
        b.send(1)
        a.send(200)
        a.send(300)
        b.send(2)
        #expect(subscriber.values == [[100, 1]])
        subscriber.request(.max(1))
        #expect(subscriber.values == [[100, 1]], "a request does not emit the stored combination")
        b.send(3)
        b.send(4)
        #expect(subscriber.values == [[100, 1], [300, 3]])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func valuesBeforeTheFirstRequestAreOnlyStored() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: nil)
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        a.send(1)
        b.send(2)
        subscriber.request(.max(5))
        a.send(3)
        #expect(subscriber.events == [.subscription("CombineLatest"), .value([3, 2])])
    }

    @Test func oneAtATimeSubscriberGetsEveryCombinationOfSynchronousSources() {
        let a = JoiningSequencePublisher(Array(0..<3))
        let b = JoiningSequencePublisher([10, 20])
        let subscriber = JoiningSubscriber.oneAtATime()
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)

        #expect(
            subscriber.events == [
                .subscription("CombineLatest"),
                .value([0, 10]), .value([1, 10]), .value([2, 10]), .value([2, 20]),
                .finished,
            ])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func longSynchronousSourcesDoNotGrowTheStack() {
        let count = 100_000
        let a = JoiningSequencePublisher(Array(0..<count))
        let b = JoiningSequencePublisher(Array(0..<count))
        let subscriber = JoiningSubscriber.oneAtATime()
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)

        #expect(subscriber.values.count == 2 * count - 1)
        #expect(subscriber.values.last == [count - 1, count - 1])
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    // MARK: Re-entrance

    @Test func aValueSentFromInsideReceiveOnlyUpdatesTheLatestValue() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(onValue: { value in
            if value == [1, 1] { #expect(a.send(2) == .none) }
            return .none
        })
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)

        a.send(1)
        b.send(1)
        #expect(subscriber.events == [.subscription("CombineLatest"), .value([1, 1])])
        b.send(5)
        #expect(subscriber.values == [[1, 1], [2, 5]])
    }

    @Test func completionCausedFromInsideReceiveComesAfterTheValue() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(onValue: { [unowned a, unowned b] _ in
            a.send(completion: .finished)
            b.send(completion: .finished)
            return .none
        })
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        a.send(1)
        b.send(1)
        #expect(subscriber.events == [.subscription("CombineLatest"), .value([1, 1]), .finished])
        #expect(subscriber.orderViolations == 0)
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
        a.combineLatest(b).subscribeJoined(subscriber)
        box.value = subscriber.subscription
        a.send(1)
        #expect(b.send(1) == .none, "no demand is handed out after cancel")
        a.send(2)
        a.send(completion: .finished)
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CombineLatest"), .value([1, 1])])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    // MARK: Completion

    @Test func finishesOnlyWhenEveryUpstreamHasFinished() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let c = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.combineLatest(b, c).subscribeJoined(subscriber)

        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CombineLatest")], "b never published, yet no early finish")
        a.send(1)
        c.send(1)
        a.send(completion: .finished)
        a.send(completion: .finished)
        #expect(subscriber.completion == nil)
        c.send(completion: .finished)
        c.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("CombineLatest"), .finished])
        #expect(a.calls == [.request(.unlimited)], "finished upstreams are not cancelled")
        #expect(b.calls == [.request(.unlimited)])
        #expect(c.calls == [.request(.unlimited)])
    }

    @Test func aFinishedUpstreamKeepsItsLatestValue() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)

        a.send(100)
        a.send(completion: .finished)
        a.send(200)
        b.send(1)
        b.send(2)
        b.send(completion: .finished)
        #expect(
            subscriber.events == [
                .subscription("CombineLatest"), .value([100, 1]), .value([100, 2]), .finished,
            ])
    }

    @Test func failsWithTheFirstFailureAndCancelsTheOthers() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let c = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.combineLatest(b, c).subscribeJoined(subscriber)

        a.send(1)
        c.send(completion: .finished)
        a.send(completion: .failure(.oops))
        b.send(1)
        b.send(completion: .failure(.other))
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CombineLatest"), .failure(.oops)])
        #expect(a.calls == [.request(.unlimited)], "the failed upstream is not cancelled")
        #expect(b.calls == [.request(.unlimited), .cancel])
        #expect(c.calls == [.request(.unlimited)], "a finished upstream is not cancelled")
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test func completionBeforeTheDownstreamIsSubscribedWaitsForIt() {
        let b = JoiningUpstream()
        let failing = JoiningSubscriber()
        defer { failing.cancel() }
        JoiningImmediatePublisher(completion: .failure(.oops)).combineLatest(b).subscribeJoined(failing)
        #expect(failing.events == [.subscription("CombineLatest"), .failure(.oops)])
        #expect(b.calls == [.cancel], "b subscribes after the failure and is cancelled at once")

        let finishing = JoiningSubscriber()
        defer { finishing.cancel() }
        let both = JoiningImmediatePublisher(completion: .finished)
        both.combineLatest(both).subscribeJoined(finishing)
        #expect(finishing.events == [.subscription("CombineLatest"), .finished])
        #expect(finishing.orderViolations == 0)
    }

    // MARK: Cancellation and subscriptions

    @Test func cancelCancelsEveryUpstreamOnceAndStopsDelivery() throws {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        a.send(1)
        b.send(1)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.cancel()
        a.send(2)
        b.send(completion: .finished)
        a.send(completion: .finished)
        subscription.request(.max(3))
        #expect(subscriber.events == [.subscription("CombineLatest"), .value([1, 1])])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test func aSecondSubscriptionOnALaneIsCancelled() {
        let a = JoiningLatePublisher()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: .max(2))
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        #expect(b.calls == [.request(.max(2))])

        a.attach()
        #expect(a.recorder.calls == [.request(.max(2))], "a late upstream gets the demand requested so far")
        a.attach()
        #expect(a.recorder.calls == [.request(.max(2)), .cancel])
        subscriber.request(.max(1))
        #expect(a.recorder.calls == [.request(.max(2)), .cancel, .request(.max(1))])
        a.send(7)
        b.send(8)
        #expect(subscriber.values == [[7, 8]])
        subscriber.cancel()
        #expect(a.recorder.calls == [.request(.max(2)), .cancel, .request(.max(1)), .cancel])
        a.attach()
        #expect(a.recorder.calls.count == 5, "a subscription arriving after cancel is cancelled")
    }

    @Test func upstreamsSeeASubscriberNamedCombineLatest() {
        let a = JoiningLatePublisher()
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        a.combineLatest(JoiningUpstream()).subscribeJoined(subscriber)
        #expect(a.subscriberDescription == "CombineLatest")
    }

    @Test func nothingIsKeptAliveAfterCompletionOrCancel() {
        weak var finished: JoiningReleasingSubscriber<(Int, Int)>?
        weak var cancelled: JoiningReleasingSubscriber<(Int, Int, Int, Int)>?
        do {
            let finishing = JoiningReleasingSubscriber<(Int, Int)>()
            finished = finishing
            JoiningSequencePublisher([1, 2]).combineLatest(JoiningSequencePublisher([3])).subscribe(finishing)
            #expect(finishing.count == 1 && finishing.completed, "a had finished before b published")
            let cancelling = JoiningReleasingSubscriber<(Int, Int, Int, Int)>(cancelAfter: 1)
            cancelled = cancelling
            let source = JoiningSequencePublisher(Array(0..<10))
            source.combineLatest(source, source, source).subscribe(cancelling)
            #expect(cancelling.count == 1 && !cancelling.completed)
        }
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test func requestingNoDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = JoiningSubscriber(initialDemand: nil)
            JoiningUpstream().combineLatest(JoiningUpstream()).subscribeJoined(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func subscriptionDescribesItself() throws {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: .max(3))
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "CombineLatest")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.first?.label == "demand")
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "CombineLatest")
    }

    // MARK: Concurrency

    @Test func valuesFromOtherThreadsDuringADeliveryAreQueuedNotLost() {
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let returned = LockedBox<[Subscribers.Demand]>([])
        let subscriber = JoiningSubscriber(
            initialDemand: .max(3),
            onValue: { value in
                if value == [1, 1] {
                    // Another thread sends while this delivery is under way: its combinations wait for it.
                    let done = DispatchSemaphore(value: 0)
                    Thread {
                        returned.append(b.send(2))
                        returned.append(a.send(3))
                        returned.append(a.send(4))
                        done.signal()
                    }.start()
                    done.wait()
                }
                return .none
            })
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        a.send(1)
        #expect(b.send(1) == .none)
        #expect(subscriber.values == [[1, 1], [1, 2], [3, 2]], "the third value came without demand")
        #expect(returned.value == [.none, .none, .none])
        #expect(subscriber.demandViolations == 0)
        b.send(5)
        #expect(subscriber.values.count == 3)
    }

    @Test func concurrentUpstreamsGetEveryCombinationSerialised() {
        let perLane = 2_000
        let lanes = [JoiningUpstream(), JoiningUpstream(), JoiningUpstream()]
        let subscriber = JoiningSubscriber()
        defer { subscriber.cancel() }
        lanes[0].combineLatest(lanes[1], lanes[2]).subscribeJoined(subscriber)
        for lane in lanes { lane.send(0) }

        joiningConcurrently(lanes.count) { index in
            for value in 1...perLane { lanes[index].send(value) }
            lanes[index].send(completion: .finished)
        }

        let values = subscriber.values
        #expect(values.count == 1 + lanes.count * perLane, "every value after the first of each gives one tuple")
        #expect(values.last == [perLane, perLane, perLane])
        for lane in 0..<lanes.count {
            let seen = values.map { $0[lane] }
            #expect(seen == seen.sorted(), "each lane's values appear in the order they were sent")
        }
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func concurrentUpstreamsNeverExceedAFiniteDemand() {
        let perLane = 3_000
        let limit = 1_000
        let a = JoiningUpstream()
        let b = JoiningUpstream()
        let subscriber = JoiningSubscriber(initialDemand: .max(limit))
        defer { subscriber.cancel() }
        a.combineLatest(b).subscribeJoined(subscriber)
        a.send(0)
        b.send(0)

        joiningConcurrently(2) { index in
            let lane = index == 0 ? a : b
            for value in 1...perLane { lane.send(value) }
        }

        #expect(subscriber.values.count == limit)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func oneAtATimeSubscriberUnderConcurrentUpstreams() {
        let perLane = 2_000
        let lanes = [JoiningUpstream(), JoiningUpstream(), JoiningUpstream(), JoiningUpstream()]
        let subscriber = JoiningSubscriber.oneAtATime()
        defer { subscriber.cancel() }
        lanes[0].combineLatest(lanes[1], lanes[2], lanes[3]).subscribeJoined(subscriber)
        for lane in lanes { lane.send(0) }

        joiningConcurrently(lanes.count) { index in
            for value in 1...perLane { lanes[index].send(value) }
            lanes[index].send(completion: .finished)
        }

        let values = subscriber.values
        #expect(values.first == [0, 0, 0, 0])
        #expect(values.count >= 1 && values.count <= 1 + lanes.count * perLane)
        for lane in 0..<lanes.count {
            let seen = values.map { $0[lane] }
            #expect(seen == seen.sorted())
        }
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func concurrentRequestsSendsAndCancel() {
        for _ in 0..<50 {
            let a = JoiningUpstream()
            let b = JoiningUpstream()
            let subscriber = JoiningSubscriber(initialDemand: .max(1))
            a.combineLatest(b).subscribeJoined(subscriber)
            a.send(0)
            joiningConcurrently(4) { index in
                switch index {
                case 0: for value in 0..<200 { a.send(value) }
                case 1: for value in 0..<200 { b.send(value) }
                case 2: for _ in 0..<200 { subscriber.request(.max(1)) }
                default: subscriber.cancel()
                }
            }
            #expect(subscriber.values.count <= 201)
            #expect(subscriber.completion == nil)
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
            #expect(a.calls.contains(.cancel))
        }
    }
}
