import Synchronization
import Testing

@testable import Ripple

/// Runs `make(upstream)` with a subscriber that asks for `.max(2)` and then `.none`, sends 1 and 2, then
/// finishes (advancing `scheduler` after each step); returns what the upstream was asked and what the
/// subscriber saw.
private func zeroDemandRun<P: Publisher>(
    scheduler: VirtualTimeScheduler? = nil,
    _ make: (TestPublisher<Int, TestError>) -> P
) -> (calls: [TestPublisher<Int, TestError>.Call], events: [Event<Int, TestError>])
where P.Output == Int, P.Failure == TestError {
    let upstream = TestPublisher<Int, TestError>()
    let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
    make(upstream).subscribe(subscriber)
    scheduler?.advance()
    subscriber.request(.max(2))
    subscriber.request(.none)
    scheduler?.advance()
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    scheduler?.advance(by: .seconds(10))
    subscriber.cancel()
    return (upstream.calls, subscriber.events)
}

/// A text stream that keeps what `print` writes.
private final class LogStream: TextOutputStream, @unchecked Sendable {
    private let lock = Lock()
    private var text = ""
    var lines: [String] { lock.withLock { text.split(separator: "\n").map(String.init) } }
    func write(_ string: String) { lock.withLock { text += string } }
}

@Suite("Zero demand: passed on where Combine passes it on")
struct ZeroDemandPassesThroughTests {
    private typealias Calls = [TestPublisher<Int, TestError>.Call]
    private static var twoValues: [Event<Int, TestError>] { [.value(1), .value(2), .finished] }

    @Test func handleEventsPassesItUpstreamAndReportsIt() {
        let requests = Mutex<[Subscribers.Demand]>([])
        let run = zeroDemandRun { upstream in
            upstream.handleEvents(receiveRequest: { demand in requests.withLock { $0.append(demand) } })
        }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        #expect(run.events == [.subscription("HandleEvents")] + Self.twoValues)
        #expect(requests.withLock { $0 } == [.max(2), .none])
    }

    @Test func printPassesItUpstreamAndLogsIt() {
        let log = LogStream()
        let run = zeroDemandRun { $0.print("p", to: log) }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        #expect(run.events == [.subscription("Print")] + Self.twoValues)
        #expect(
            log.lines.prefix(3) == [
                "p: receive subscription: (TestSubscription)", "p: request max: (2)", "p: request max: (0)",
            ])
    }

    @Test func subscribeOnSchedulesItUpstream() {
        let scheduler = VirtualTimeScheduler()
        let run = zeroDemandRun(scheduler: scheduler) { $0.subscribe(on: scheduler) }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        #expect(run.events == [.subscription("SubscribeOn")] + Self.twoValues)
    }

    @Test func receiveOnPassesItUpstream() {
        let scheduler = VirtualTimeScheduler()
        let run = zeroDemandRun(scheduler: scheduler) { $0.receive(on: scheduler) }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        #expect(run.events == [.subscription("ReceiveOn")] + Self.twoValues)
    }

    @Test func delayPassesItUpstream() {
        let scheduler = VirtualTimeScheduler()
        let run = zeroDemandRun(scheduler: scheduler) { $0.delay(for: .seconds(1), scheduler: scheduler) }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        let relay = String(
            reflecting: ScheduledRelay<TestSubscriber<Int, TestError>, VirtualTimeScheduler, DelayRelay>.self)
        #expect(run.events == [.subscription(relay)] + Self.twoValues)
    }

    @Test func appendAndPrependPassItToTheCurrentUpstream() {
        let append = zeroDemandRun { $0.append(3) }
        #expect(append.calls == [.request(.max(2)), .request(.none)])
        #expect(append.events == [.subscription("Concatenate"), .value(1), .value(2)])
        let prepend = zeroDemandRun { $0.prepend(0) }
        // The sequence delivers 0 and finishes; the upstream gets what is left, then the zero.
        #expect(prepend.calls == [.request(.max(1)), .request(.none)])
        #expect(prepend.events == [.subscription("Concatenate"), .value(0), .value(1), .value(2), .finished])
    }

    @Test func throttleAndDebounceAddNothing() {
        let scheduler = VirtualTimeScheduler()
        let throttle = zeroDemandRun(scheduler: scheduler) {
            $0.throttle(for: .seconds(1), scheduler: scheduler, latest: true)
        }
        // Both values arrive at once: the latest is emitted, with the completion, at the scheduled emission.
        #expect(throttle.calls == [.request(.unlimited)])
        #expect(throttle.events == [.subscription("Throttle"), .value(2), .finished])
        let debounce = zeroDemandRun(scheduler: scheduler) { $0.debounce(for: .seconds(1), scheduler: scheduler) }
        #expect(debounce.calls == [.request(.unlimited)])
        // As in Combine, the completion drops the value still waiting for its due time.
        #expect(debounce.events == [.subscription("Debounce"), .finished])
    }

    @Test func timeoutPassesItUpstream() {
        let scheduler = VirtualTimeScheduler()
        let run = zeroDemandRun(scheduler: scheduler) { $0.timeout(.seconds(5), scheduler: scheduler) }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        #expect(run.events == [.subscription("Timeout")] + Self.twoValues)
    }

    @Test func bufferAddsNothing() {
        let run = zeroDemandRun { $0.buffer(size: 4, prefetch: .byRequest, whenFull: .dropOldest) }
        // `.byRequest` asks for everything; finishing waits for demand (as in Combine), so it stays pending,
        // and the cancel at the end still reaches the finished upstream, as in Combine.
        #expect(run.calls == [.request(.unlimited), .cancel])
        #expect(run.events == [.subscription("Buffer"), .value(1), .value(2)])
    }

    @Test func measureIntervalPassesItUpstream() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<VirtualTimeScheduler.SchedulerTimeType.Stride, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.measureInterval(using: scheduler).subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.request(.none)
        upstream.send(1)
        #expect(upstream.calls == [.request(.max(1)), .request(.none)])
        #expect(subscriber.events == [.subscription("MeasureInterval"), .value(.zero)])
    }

    @Test func untilOutputOperatorsPassItUpstream() {
        let other = PassthroughSubject<Void, TestError>()
        let drop = zeroDemandRun { $0.drop(untilOutputFrom: other) }
        #expect(drop.calls == [.request(.max(2)), .request(.none)])
        #expect(drop.events == [.subscription("DropUntilOutput"), .finished])
        let prefix = zeroDemandRun { $0.prefix(untilOutputFrom: other) }
        #expect(prefix.calls == [.request(.max(2)), .request(.none)])
        let inner = Publishers.PrefixUntilOutput<TestPublisher<Int, TestError>, PassthroughSubject<Void, TestError>>
            .Inner<TestSubscriber<Int, TestError>>.self
        #expect(prefix.events == [.subscription(String(reflecting: inner))] + Self.twoValues)
    }

    @Test func retryPassesItUpstream() {
        let run = zeroDemandRun { $0.retry(1) }
        #expect(run.calls == [.request(.max(2)), .request(.none)])
        #expect(run.events == [.subscription("Retry")] + Self.twoValues)
    }

    @Test func prefixAndOutputPassItUpstream() {
        let prefix = zeroDemandRun { $0.prefix(5) }
        #expect(prefix.calls == [.request(.max(2)), .request(.none)])
        #expect(prefix.events == [.subscription("Output")] + Self.twoValues)
        let output = zeroDemandRun { $0.output(in: 1..<3) }
        #expect(output.calls == [.request(.max(2)), .request(.none)])
        #expect(output.events == [.subscription("Output"), .value(2), .finished])
    }

    @Test func tryMapAndTryScanPassItUpstream() {
        let tryMap = zeroDemandRun { $0.tryMap { $0 }.mapError { $0 as? TestError ?? .other } }
        #expect(tryMap.calls == [.request(.max(2)), .request(.none)])
        #expect(tryMap.events == [.subscription("TryMap")] + Self.twoValues)
        let tryScan = zeroDemandRun { $0.tryScan(0, +).mapError { $0 as? TestError ?? .other } }
        // TryScan stays subscribed after a completion (as in Combine), so the final cancel reaches upstream.
        #expect(tryScan.calls == [.request(.max(2)), .request(.none), .cancel])
        #expect(tryScan.events == [.subscription("TryScan"), .value(1), .value(3), .finished])
    }

    @Test func sequenceAndRecordAcceptIt() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        [1, 2].publisher.subscribe(subscriber)
        subscriber.request(.none)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("[1, 2]"), .value(1)])
        subscriber.cancel()
    }

    @Test func timerTicksAddNothing() {
        let scheduler = VirtualTimeScheduler()
        let subscriber = TestSubscriber<VirtualTimeScheduler.SchedulerTimeType, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        Publishers.Every(interval: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        subscriber.request(.none)
        scheduler.advance(by: .seconds(1))
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values.count == 1)
        subscriber.cancel()
    }
}

@Suite("Zero demand: traps where Combine traps")
struct ZeroDemandTrapsTests {
    @Test func subjectsTrap() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            PassthroughSubject<Int, Never>().subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            CurrentValueSubject<Int, Never>(1).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func optionalAndResultPublishersTrap() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            Optional(1).publisher.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            Result<Int, TestError>.success(1).publisher.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func operatorsWithValuesOfTheirOwnTrap() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().flatMap { Just($0) }.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Just<Int>, Never>().switchToLatest().subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, TestError>().catch { _ in Just(0) }.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().drop(while: { $0 < 0 }).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().prefix(while: { $0 < 0 }).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().removeDuplicates().subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().reduce(0, +).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }
}
