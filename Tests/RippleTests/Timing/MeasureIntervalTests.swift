import Dispatch
import Testing

@testable import Ripple

@Suite("measureInterval(using:)")
struct MeasureIntervalTests {
    typealias Stride = VirtualTimeScheduler.SchedulerTimeType.Stride

    @Test func emitsTheTimeSinceThePreviousValueOrTheSubscription() {
        let scheduler = VirtualTimeScheduler()
        scheduler.advance(by: .seconds(10))
        let upstream = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<Stride, TestError>()
        defer { subscriber.cancel() }
        upstream.measureInterval(using: scheduler).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(1_500))
        upstream.send("a")
        upstream.send("b")
        scheduler.advance(by: .milliseconds(250))
        upstream.send("c")
        upstream.send(completion: .failure(.oops))
        upstream.send("d")
        #expect(
            subscriber.events == [
                .subscription("MeasureInterval"), .value(.milliseconds(1_500)), .value(.zero),
                .value(.milliseconds(250)),
                .failure(.oops),
            ])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func returnedDemandIsRequestedSeparatelyAsInCombine() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Stride, Never>(initialDemand: .max(1), onValue: { _ in .max(2) })
        defer { subscriber.cancel() }
        upstream.measureInterval(using: scheduler, options: nil).subscribe(subscriber)
        let demand = upstream.send(1)
        #expect(demand == .none)
        subscriber.request(.max(3))
        #expect(upstream.calls == [.request(.max(1)), .request(.max(2)), .request(.max(3))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func cancellationStopsEverything() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Stride, Never>()
        defer { subscriber.cancel() }
        upstream.measureInterval(using: scheduler).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        let reads = scheduler.nowReads
        upstream.send(1)
        #expect(scheduler.nowReads == reads, "as in Combine, a value after the cancel does not read the clock")
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("MeasureInterval")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        let subscription = subscriber.subscription
        #expect(
            subscription.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
                == "MeasureInterval")
        #expect(subscription.flatMap { ($0 as? any CustomReflectable)?.customMirror.children.isEmpty } == true)
        #expect(callsOnSecondSubscription(subscription, Int.self, Never.self) == [.cancel])
    }

    @Test func realTimeIntervalsOnADispatchQueue() {
        let queue = DispatchQueue(label: "measure")
        let upstream = TestPublisher<Int, Never>()
        let intervals = TimingTestList<DispatchQueue.SchedulerTimeType.Stride>()
        let cancellable = upstream.measureInterval(using: queue).sink { intervals.append($0) }
        upstream.send(1)
        let before = DispatchTime.now().uptimeNanoseconds
        while DispatchTime.now().uptimeNanoseconds - before < 2_000_000 {}
        upstream.send(2)
        #expect(intervals.count == 2)
        #expect(intervals.all.allSatisfy { $0.magnitude >= 0 && $0.magnitude < 5_000_000_000 })
        #expect(intervals.all[1].magnitude >= 2_000_000)
        cancellable.cancel()
    }
}
