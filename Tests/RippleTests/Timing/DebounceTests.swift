import Dispatch
import Testing

@testable import Ripple

@Suite("debounce(for:scheduler:)")
struct DebounceTests {
    @Test func emitsTheLastValueOfEachBurstAfterTheQuietTime() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(300))
        upstream.send(2)
        scheduler.advance(by: .milliseconds(300))
        upstream.send(3)
        scheduler.advance(by: .milliseconds(999))
        #expect(subscriber.timeline == ["subscription(Debounce)@0.0s"])
        scheduler.advance(by: .milliseconds(1))
        #expect(subscriber.timeline == ["subscription(Debounce)@0.0s", "value(3)@1.6s"])
        scheduler.advance(by: .milliseconds(1_400))
        upstream.send(4)
        scheduler.advance(by: .seconds(5))
        upstream.send(completion: .finished)
        scheduler.advance(by: .zero)
        #expect(
            subscriber.timeline == ["subscription(Debounce)@0.0s", "value(3)@1.6s", "value(4)@4.0s", "finished@8.0s"])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func aValueStillWaitingWhenTheUpstreamCompletesIsDropped() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(completion: .failure(.oops))
        upstream.send(2)
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.timeline == ["subscription(Debounce)@0.0s", "failure(oops)@0.5s"])
    }

    @Test func valuesDueWithoutDemandAreDropped() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler, initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .seconds(2))
        subscriber.request(.max(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(2))
        upstream.send(3)
        scheduler.advance(by: .seconds(2))
        #expect(subscriber.timeline == ["subscription(Debounce)@0.0s", "value(2)@3.0s"])
        #expect(subscriber.demandViolations == 0)
        #expect(upstream.calls == [.request(.unlimited)], "demand stays with the operator")
        subscriber.cancel()
    }

    @Test func demandReturnedFromReceiveCounts() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        for value in 1...3 {
            upstream.send(value)
            scheduler.advance(by: .seconds(2))
        }
        #expect(
            subscriber.timeline == ["subscription(Debounce)@0.0s", "value(1)@1.0s", "value(2)@3.0s", "value(3)@5.0s"])
        #expect(subscriber.demandViolations == 0)
        subscriber.cancel()
    }

    @Test func eachValueReplacesTheWaitAndCancellationStopsIt() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler, options: 2).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(500))
        upstream.send(2)
        #expect(scheduler.log == ["every 1.0s from 1.0s opt 2", "every 1.0s from 1.5s opt 2"])
        #expect(scheduler.liveRepeatingSchedules == 1)
        subscriber.cancel()
        #expect(scheduler.liveRepeatingSchedules == 0)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.events == [.subscription("Debounce")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func theWaitStopsOnceItsValueIsEmitted() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.liveRepeatingSchedules == 0)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.events == [.subscription("Debounce"), .value(1)])
        #expect(callsOnSecondSubscription(subscriber.subscription, Int.self, Never.self) == [.cancel])
        subscriber.cancel()
    }

    @Test func reflectsAsCombineDoes() throws {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        let upstreamSide = try #require(subscriber.subscription)
        let subscription = try #require(upstreamSide as? any CustomReflectable)
        func children() -> [String] { subscription.customMirror.children.map { "\($0.label ?? "")=\($0.value)" } }
        #expect(children() == ["downstream=TestSubscriber", "downstreamDemand=max(2)", "currentValue=nil"])
        upstream.send(7)
        #expect(children().last == "currentValue=Optional(7)")
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Debounce")
        subscriber.cancel()
    }

    @Test func realTimeDebounceOnADispatchQueue() {
        let queue = DispatchQueue(label: "debounce")
        let upstream = TestPublisher<Int, Never>()
        let done = TimingTestFlag()
        let values = TimingTestList<Int>()
        let cancellable = upstream.debounce(for: .milliseconds(50), scheduler: queue).sink { value in
            values.append(value)
            if value == 5 { done.raise() }
        }
        for value in 1...5 { upstream.send(value) }
        #expect(done.wait())
        // Normally just [5]; a sender descheduled for longer than the due time lets an earlier value out.
        #expect(values.all.last == 5)
        #expect(zip(values.all, values.all.dropFirst()).allSatisfy { $0 < $1 })
        cancellable.cancel()
    }
}
