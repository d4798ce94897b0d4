import Dispatch
import Testing

@testable import Ripple

@Suite("delay(for:)")
struct DelayTests {
    @Test func shiftsEveryValueAndTheCompletionByTheInterval() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.delay(for: .seconds(2), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(2)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(completion: .finished)
        scheduler.advance(by: .milliseconds(1_999))
        #expect(subscriber.timeline == [delaySubscription(), "value(1)@2.0s", "value(2)@2.5s"])
        scheduler.advance(by: .milliseconds(1))
        #expect(subscriber.timeline == [delaySubscription(), "value(1)@2.0s", "value(2)@2.5s", "finished@3.0s"])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func failuresAreDelayedToo() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .finished)
        upstream.send(9)
        scheduler.run()
        #expect(subscriber.timeline == [delaySubscription(TestError.self), "failure(oops)@1.0s"])
    }

    @Test func schedulesAfterTheIntervalWithToleranceAndOptions() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        let delayed = upstream.delay(for: .seconds(1), tolerance: .milliseconds(5), scheduler: scheduler, options: 9)
        #expect(delayed.interval == .seconds(1) && delayed.tolerance == .milliseconds(5) && delayed.options == 9)
        delayed.subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(scheduler.log == ["at 1.0s ±0.005s opt 9", "at 1.0s ±0.005s opt 9"])
        #expect(
            upstream.delay(for: .seconds(1), scheduler: scheduler).tolerance == .nanoseconds(7),
            "defaults to minimumTolerance")
        scheduler.advance(by: .seconds(1))
        // Like Combine's, the subscription customises neither its description nor its mirror.
        let relay = String(reflecting: ScheduledRelay<TestSubscriber<Int, Never>, LoggingScheduler, DelayRelay>.self)
        #expect(subscriber.events == [.subscription(relay), .value(1), .finished])
    }

    @Test func theSubscriptionHasNoReflectionOfItsOwnAsInCombine() throws {
        final class Capturing: Publisher {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: Any?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber
            }
        }
        let upstream = Capturing()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.delay(for: .seconds(1), scheduler: VirtualTimeScheduler()).subscribe(subscriber)
        let relay = try #require(upstream.subscriber)
        #expect(!(relay is any CustomStringConvertible))
        #expect(!(relay is any CustomReflectable))
        #expect(!(relay is any CustomPlaygroundDisplayConvertible))
        let receiveOn = Capturing()
        receiveOn.receive(on: VirtualTimeScheduler()).subscribe(subscriber)
        #expect(String(describing: try #require(receiveOn.subscriber)) == "ReceiveOn")
    }

    @Test func honoursDemandOneAtATime() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == [delaySubscription(), "value(1)@1.0s", "value(2)@2.0s"])
        #expect(upstream.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func demandReturnedAfterTheUpstreamCompletedStillGoesUpstreamAsInCombine() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == [delaySubscription(), "value(1)@1.0s", "finished@1.0s"])
        #expect(upstream.calls == [.request(.max(1)), .request(.max(1))])
    }

    @Test func cancellationDropsWhatIsStillDelayed() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(2)
        scheduler.advance(by: .milliseconds(500))
        subscriber.cancel()
        upstream.send(3)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.timeline == [delaySubscription(), "value(1)@1.0s"])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(scheduler.scheduledCount == 0)
    }

    @Test func realTimeDelayOnADispatchQueue() {
        let queue = DispatchQueue(label: "delay")
        let upstream = TestPublisher<Int, Never>()
        let done = TimingTestFlag()
        let arrivals = TimingTestList<UInt64>()
        let start = DispatchTime.now().uptimeNanoseconds
        let cancellable = upstream.delay(for: .milliseconds(50), scheduler: queue).sink(
            receiveCompletion: { _ in done.raise() },
            receiveValue: { _ in arrivals.append(DispatchTime.now().uptimeNanoseconds - start) }
        )
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(done.wait())
        #expect(arrivals.count == 1)
        #expect(arrivals.all.allSatisfy { $0 >= 50_000_000 && $0 < 5_000_000_000 })
        cancellable.cancel()
    }
}

/// How a timeline shows the subscription of `delay`: its type's name, as it customises no description (as in
/// Combine).
private func delaySubscription<Failure: Error & Equatable>(_: Failure.Type = Never.self) -> String {
    let relay = ScheduledRelay<TimelineSubscriber<Int, Failure>, VirtualTimeScheduler, DelayRelay>.self
    return "subscription(\(String(reflecting: relay)))@0.0s"
}
