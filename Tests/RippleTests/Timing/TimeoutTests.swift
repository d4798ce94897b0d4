import Dispatch
import Testing

@testable import Ripple

@Suite("timeout(_:scheduler:)")
struct TimeoutTests {
    @Test func finishesAndCancelsTheUpstreamWhenNothingArrives() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(999))
        #expect(subscriber.timeline == ["subscription(Timeout)@0.0s"])
        scheduler.advance(by: .milliseconds(1))
        #expect(subscriber.timeline == ["subscription(Timeout)@0.0s", "finished@1.0s"])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(1)
        upstream.send(completion: .failure(.other))
        scheduler.advance(by: .seconds(10))
        #expect(subscriber.timeline.count == 2, "nothing after the timeout")
    }

    @Test func failsWithTheCustomError() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(2), scheduler: scheduler, customError: { .oops }).subscribe(subscriber)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.timeline == ["subscription(Timeout)@0.0s", "failure(oops)@2.0s"])
    }

    @Test func everyValueRestartsTheClock() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(1)
        scheduler.advance(by: .milliseconds(900))
        upstream.send(2)
        scheduler.advance(by: .seconds(3))
        #expect(
            subscriber.timeline == [
                "subscription(Timeout)@0.0s", "value(1)@0.5s", "value(2)@1.4s", "finished@2.4s",
            ])
    }

    @Test func theFirstRequestRestartsTheClockAndLaterOnesDoNot() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler, initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(600))
        subscriber.request(.max(1))
        scheduler.advance(by: .milliseconds(600))
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == ["subscription(Timeout)@0.0s", "finished@1.6s"])
        #expect(upstream.calls == [.request(.max(1)), .request(.max(1)), .cancel])
    }

    @Test func schedulesARepeatingClockAndDeliveriesWithTheOptions() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler, options: 4).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(
            scheduler.log == [
                "every 1.0s from 1.0s opt 4", "every 1.0s from 1.0s opt 4", "every 1.0s from 1.0s opt 4", "now opt 4",
                "now opt 4",
            ])
        #expect(scheduler.liveRepeatingSchedules == 0, "completion stops the clock")
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.events == [.subscription("Timeout"), .value(1), .finished])
    }

    @Test func upstreamCompletionStopsTheClock() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler, customError: { .oops }).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(completion: .failure(.other))
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.timeline == ["subscription(Timeout)@0.0s", "failure(other)@0.5s"])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func cancellationStopsTheClockAndDropsDeliveries() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.cancel()
        #expect(scheduler.liveRepeatingSchedules == 0)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.events == [.subscription("Timeout")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(callsOnSecondSubscription(subscription, Int.self, Never.self) == [.cancel])
    }

    @Test func aCancelWhileTheCompletionIsOnTheSchedulerCancelsTheUpstreamAsCombineDoes() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(completion: .finished)
        subscriber.cancel()
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.events == [.subscription("Timeout")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func honoursDemandOneAtATime() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.timeout(.seconds(10), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == ["subscription(Timeout)@0.0s", "value(1)@0.0s", "value(2)@0.0s"])
        #expect(upstream.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))])
    }

    @Test func immediateSchedulerTraps() async {
        // Combine traps here too: the clock would fire at once, inside the subscription.
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.timeout(.seconds(1), scheduler: ImmediateScheduler.shared, customError: { .oops })
                .subscribe(TestSubscriber<Int, TestError>())
        }
    }

    @Test func realTimeTimeoutOnADispatchQueue() {
        let queue = DispatchQueue(label: "timeout")
        let upstream = TestPublisher<Int, TestError>()
        let done = TimingTestFlag()
        let result = TimingTestList<(Subscribers.Completion<TestError>, UInt64)>()
        let start = DispatchTime.now().uptimeNanoseconds
        let cancellable = upstream.timeout(.milliseconds(50), scheduler: queue, customError: { .oops }).sink(
            receiveCompletion: { completion in
                result.append((completion, DispatchTime.now().uptimeNanoseconds - start))
                done.raise()
            },
            receiveValue: { _ in }
        )
        #expect(done.wait())
        #expect(result.all.first?.0 == .failure(.oops))
        #expect(result.all.allSatisfy { $0.1 >= 50_000_000 && $0.1 < 5_000_000_000 })
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        cancellable.cancel()
    }
}
