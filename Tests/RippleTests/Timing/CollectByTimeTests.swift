import Dispatch
import Testing

@testable import Ripple

@Suite("collect(.byTime / .byTimeOrCount)")
struct CollectByTimeTests {

    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = VirtualTimeScheduler()
            let subscriber = TestSubscriber<[Int], TestError>(initialDemand: nil)
            TestPublisher<Int, TestError>().collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func byTimeEmitsWhatWasCollectedAtEachTickAndTheRestOnFinish() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<[Int], TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.collect(.byTime(scheduler, .seconds(2))).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1), "by time, each value asks for one more, as in Combine")
        upstream.send(2)
        scheduler.advance(by: .seconds(2))
        upstream.send(3)
        upstream.send(4)
        upstream.send(5)
        scheduler.advance(by: .seconds(1))
        upstream.send(completion: .finished)
        upstream.send(6)
        scheduler.advance(by: .seconds(5))
        #expect(
            subscriber.timeline == [
                "subscription(CollectByTime)@0.0s", "value([1, 2])@2.0s", "value([3, 4, 5])@3.0s", "finished@3.0s",
            ])
        #expect(upstream.calls == [.request(.max(1))])
    }

    @Test func byTimeDropsWhatWasCollectedOnFailureAndSkipsEmptyTicks() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<[Int], TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.collect(.byTime(scheduler, .seconds(2))).subscribe(subscriber)
        scheduler.advance(by: .seconds(4))
        upstream.send(1)
        upstream.send(2)
        scheduler.advance(by: .seconds(2))
        upstream.send(3)
        scheduler.advance(by: .seconds(1))
        upstream.send(completion: .failure(.oops))
        scheduler.advance(by: .seconds(5))
        #expect(
            subscriber.timeline == ["subscription(CollectByTime)@0.0s", "value([1, 2])@6.0s", "failure(oops)@7.0s"])
    }

    @Test func byTimeOrCountEmitsFullGroupsAtOnceAndTheRestAtTicks() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<[Int], Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.collect(.byTimeOrCount(scheduler, .seconds(2), 2)).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        upstream.send(2)
        upstream.send(3)
        scheduler.advance(by: .seconds(2))
        for value in 4...8 { upstream.send(value) }
        scheduler.advance(by: .seconds(2))
        upstream.send(completion: .finished)
        scheduler.advance(by: .zero)
        #expect(
            subscriber.timeline == [
                "subscription(CollectByTime)@0.0s", "value([1, 2])@0.0s", "value([3])@2.0s", "value([4, 5])@2.0s",
                "value([6, 7])@2.0s", "value([8])@4.0s", "finished@4.0s",
            ])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func byTimeOrCountRequestsCountValuesPerGroup() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<[Int], Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.collect(.byTimeOrCount(scheduler, .seconds(1), 3)).subscribe(subscriber)
        for value in 1...3 { upstream.send(value) }
        scheduler.advance(by: .zero)
        upstream.send(4)
        scheduler.advance(by: .seconds(1))
        #expect(
            subscriber.timeline == ["subscription(CollectByTime)@0.0s", "value([1, 2, 3])@0.0s", "value([4])@1.0s"])
        #expect(upstream.calls == [.request(.max(3)), .request(.max(3)), .request(.max(3))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func withoutDemandValuesWaitForALaterTick() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<[Int], Never>(scheduler, initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.collect(.byTime(scheduler, .seconds(2))).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        scheduler.advance(by: .seconds(3))
        subscriber.request(.max(1))
        upstream.send(3)
        scheduler.advance(by: .seconds(1))
        upstream.send(4)
        scheduler.advance(by: .seconds(4))
        #expect(subscriber.timeline == ["subscription(CollectByTime)@0.0s", "value([1, 2, 3])@4.0s"])
        #expect(upstream.calls == [.request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func finishingWaitsForDemandToSendWhatIsLeft() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<[Int], Never>(scheduler, initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.collect(.byTimeOrCount(scheduler, .seconds(10), 2)).subscribe(subscriber)
        for value in 1...5 { upstream.send(value) }
        upstream.send(completion: .finished)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == ["subscription(CollectByTime)@0.0s", "value([1, 2])@0.0s"])
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(1))
        subscriber.request(.max(5))
        scheduler.advance(by: .seconds(1))
        #expect(
            subscriber.timeline == [
                "subscription(CollectByTime)@0.0s", "value([1, 2])@0.0s", "value([3, 4])@1.0s", "value([5])@2.0s",
                "finished@2.0s",
            ])
        #expect(upstream.calls == [.request(.max(2))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func cancellationStopsTheTimerAndDropsWhatWasCollected() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        defer { subscriber.cancel() }
        upstream.collect(.byTime(scheduler, .seconds(1)), options: 5).subscribe(subscriber)
        #expect(scheduler.log == ["every 1.0s from 1.0s opt 5"])
        #expect(scheduler.liveRepeatingSchedules == 1)
        upstream.send(1)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.cancel()
        #expect(scheduler.liveRepeatingSchedules == 0)
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.events == [.subscription("CollectByTime")])
        #expect(upstream.calls == [.request(.max(1)), .cancel])
        #expect(callsOnSecondSubscription(subscription, Int.self, Never.self) == [.cancel])
    }

    @Test func realTimeCollectOnADispatchQueue() {
        let queue = DispatchQueue(label: "collect")
        let upstream = TestPublisher<Int, Never>()
        let done = TimingTestFlag()
        let groups = TimingTestList<[Int]>()
        let cancellable = upstream.collect(.byTime(queue, .milliseconds(30))).sink { group in
            groups.append(group)
            if group.last == 3 { done.raise() }
        }
        for value in 1...3 { upstream.send(value) }
        #expect(done.wait())
        // Normally one group [1, 2, 3]; a tick may fall between two sends and split it.
        #expect(groups.all.flatMap { $0 } == [1, 2, 3])
        #expect(groups.all.allSatisfy { !$0.isEmpty })
        cancellable.cancel()
    }
}
