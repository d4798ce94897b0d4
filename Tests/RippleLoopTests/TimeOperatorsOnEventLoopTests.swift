import Ripple
import RippleTestKit
import RippleTestSupport
import Testing

@testable import RippleLoop

// Every time operator of `Sources/Ripple/Timing/` run once on a real `EventLoop`, in real time.
//
// How these tests stay deterministic on a loaded machine:
// - Values are sent from the loop itself, at absolute deadlines (`loop.schedule(after:)`) or from inside
//   the subscriber when an earlier signal arrives. The loop fires timers in deadline order however late
//   it runs, and an operator's own deadline (`now + interval` when a value arrives) is always later than
//   the deadline of the send that caused it, so the order of events does not depend on how busy the
//   machine is.
// - Lower bounds on timing hold exactly (loop timers never fire early); they are checked with a few
//   milliseconds of slack. Upper bounds are loose (two seconds).
// - Tests wait with continuations (`Latch`, `EventLoop.wait`), never by sleeping.

/// A time on the loop's clock.
private typealias LoopTime = EventLoop.SchedulerTimeType
/// An interval on the loop's clock.
private typealias LoopStride = EventLoop.SchedulerTimeType.Stride

/// The failures the tests' upstreams send, and the custom timeout error.
private enum TimingFailure: Error, Equatable {
    case failed
    case timedOut
}

/// A signal a ``TimedSink`` received.
private enum LoopEvent<Input: Equatable & Sendable, Failure: Error & Equatable>: Equatable, Sendable {
    case value(Input)
    case finished
    case failure(Failure)
}

/// Opened once, from any thread; awaited by the test with an upper bound measured on a loop.
private final class Latch: Sendable {
    private struct State: Sendable {
        var isOpen = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = LockedBox(State())

    /// Opens the latch, resuming the waiter if there is one. Later calls do nothing.
    func open() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.isOpen else { return nil }
            state.isOpen = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: true)
    }

    /// Waits until the latch is open (true) or `limit` has passed on `loop`'s clock (false).
    func wait(on loop: EventLoop, atMost limit: LoopStride = .seconds(2)) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let isOpen = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiter = continuation
                return false
            }
            if isOpen {
                continuation.resume(returning: true)
                return
            }
            loop.schedule(after: loop.now.advanced(by: limit)) {
                let waiter = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: false)
            }
        }
    }
}

/// A subscriber that records every signal with the loop time it arrived at and whether it arrived on
/// the loop thread, and lets the test react to each signal (send more, cancel, open a latch).
///
/// The recording itself is RippleTestKit's `TestSubscriber` (the history, the demand the test chooses, the
/// subscription released at the end); this adds, for each value and the completion, when and where it came.
private final class TimedSink<Input: Equatable & Sendable, Failure: Error & Equatable>: Subscriber, Sendable {
    typealias Event = LoopEvent<Input, Failure>

    /// One signal, when and where it arrived.
    struct Entry: Sendable {
        let event: Event
        let time: LoopTime
        let onLoop: Bool
    }

    /// When and where a signal arrived.
    private struct Arrival: Sendable {
        let time: LoopTime
        let onLoop: Bool
    }

    let loop: EventLoop
    /// Opened by `receive(subscription:)`.
    let subscribed = Latch()
    /// Opened by the completion.
    let completed = Latch()
    /// Whether `receive(subscription:)` ran on the loop thread (`nil` before it ran).
    let subscribedOnLoop = LockedBox<Bool?>(nil)
    /// Everything received and asked for.
    let recorder: TestSubscriber<Input, Failure>
    /// When and where each value and the completion arrived, in the order of `recorder`'s events.
    private let arrivals = LockedBox<[Arrival]>()
    private let onEvent: @Sendable (Event, TimedSink) -> Void

    init(
        loop: EventLoop,
        initialDemand: Subscribers.Demand = .unlimited,
        onEvent: @escaping @Sendable (Event, TimedSink) -> Void = { _, _ in }
    ) {
        self.loop = loop
        recorder = TestSubscriber(initialDemand: initialDemand)
        self.onEvent = onEvent
    }

    var all: [Entry] {
        let signals = recorder.events.compactMap { event -> Event? in
            switch event {
            case .value(let value): .value(value)
            case .completion(.finished): .finished
            case .completion(.failure(let error)): .failure(error)
            case .subscription, .request, .cancel: nil
            }
        }
        return zip(signals, arrivals.value).map { Entry(event: $0, time: $1.time, onLoop: $1.onLoop) }
    }
    var events: [Event] { all.map(\.event) }
    var times: [LoopTime] { all.map(\.time) }
    var threads: [Bool] { all.map(\.onLoop) }
    var values: [Input] { recorder.values }
    var valueCount: Int { recorder.valueCount }

    /// The arrival time of the signal at `index`, if it arrived.
    func time(at index: Int) -> LoopTime? {
        let all = self.all
        return index < all.count ? all[index].time : nil
    }

    func request(_ demand: Subscribers.Demand) {
        recorder.request(demand)
    }

    /// Cancels and releases the subscription (as a sink does), which ends the cycle between them.
    func cancel() {
        recorder.cancel()
    }

    func receive(subscription: any Subscription) {
        subscribedOnLoop.value = loop.isInLoopThread
        recorder.receive(subscription: subscription)
        subscribed.open()
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        arrive()
        let demand = recorder.receive(input)
        onEvent(.value(input), self)
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        arrive()
        recorder.receive(completion: completion)
        switch completion {
        case .finished: onEvent(.finished, self)
        case .failure(let error): onEvent(.failure(error), self)
        }
        completed.open()
    }

    /// Notes when and where the signal being received arrived.
    private func arrive() {
        arrivals.append(Arrival(time: loop.now, onLoop: loop.isInLoopThread))
    }
}

/// Expects `end` to come at least `minimum` (a few milliseconds of slack included by the caller) and
/// less than two seconds after `start`.
private func expectElapsed(
    from start: LoopTime,
    to end: LoopTime?,
    atLeast minimum: LoopStride,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let end else {
        Issue.record("\(what): never happened", sourceLocation: sourceLocation)
        return
    }
    let elapsed = start.distance(to: end)
    #expect(
        elapsed >= minimum, "\(what) came after \(elapsed), expected at least \(minimum)",
        sourceLocation: sourceLocation)
    #expect(elapsed < .seconds(2), "\(what) came after \(elapsed), expected within 2 s", sourceLocation: sourceLocation)
}

extension LoopTime {
    /// This time plus `milliseconds`.
    fileprivate func plus(milliseconds: Int) -> LoopTime {
        advanced(by: .milliseconds(milliseconds))
    }
}

@Suite("Time operators on an EventLoop, in real time", .timeLimit(.minutes(1)))
struct TimeOperatorsOnEventLoopTests {
    // MARK: receive(on:) and subscribe(on:)

    @Test func receiveOnDeliversValuesAndCompletionOnTheLoopThreadInOrder() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let sink = TimedSink<Int, TimingFailure>(loop: loop)
        subject.receive(on: loop).subscribe(sink)
        #expect(
            sink.subscribedOnLoop.value == false, "the subscription reaches the subscriber on the subscribing thread")

        let start = loop.now
        for value in 1...3 {
            subject.send(value)
        }
        subject.send(completion: .finished)

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value(1), .value(2), .value(3), .finished])
        #expect(sink.threads == [true, true, true, true])
        expectElapsed(from: start, to: sink.time(at: 3), atLeast: .zero, "the completion")
    }

    @Test func receiveOnDeliversAFailureOnTheLoopThread() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let sink = TimedSink<Int, TimingFailure>(loop: loop)
        subject.receive(on: loop).subscribe(sink)

        subject.send(7)
        subject.send(completion: .failure(.failed))

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value(7), .failure(.failed)])
        #expect(sink.threads == [true, true])
    }

    @Test func subscribeOnSubscribesAndRequestsOnTheLoopThread() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let upstreamCalls = LockedBox<[String]>()
        let upstream = [1, 2, 3].publisher.handleEvents(
            receiveSubscription: { _ in upstreamCalls.append("subscription on loop: \(loop.isInLoopThread)") },
            receiveRequest: { demand in upstreamCalls.append("request \(demand) on loop: \(loop.isInLoopThread)") }
        )
        let sink = TimedSink<Int, Never>(loop: loop)
        let start = loop.now
        upstream.subscribe(on: loop).subscribe(sink)

        #expect(await sink.completed.wait(on: loop))
        #expect(upstreamCalls.value == ["subscription on loop: true", "request unlimited on loop: true"])
        #expect(sink.subscribedOnLoop.value == true)
        #expect(sink.events == [.value(1), .value(2), .value(3), .finished])
        // The sequence answers the request synchronously, so its values arrive on the loop thread.
        #expect(sink.threads == [true, true, true, true])
        expectElapsed(from: start, to: sink.time(at: 3), atLeast: .zero, "the completion")
    }

    @Test func subscribeOnSendsRequestsAndCancelToTheUpstreamOnTheLoopThread() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let upstreamCalls = LockedBox<[String]>()
        let requested = Latch()
        let cancelled = Latch()
        let upstream = subject.handleEvents(
            receiveCancel: {
                upstreamCalls.append("cancel on loop: \(loop.isInLoopThread)")
                cancelled.open()
            },
            receiveRequest: { demand in
                upstreamCalls.append("request \(demand) on loop: \(loop.isInLoopThread)")
                requested.open()
            }
        )
        let received = Latch()
        let sink = TimedSink<Int, TimingFailure>(loop: loop, initialDemand: .none) { _, _ in received.open() }
        upstream.subscribe(on: loop).subscribe(sink)
        #expect(await sink.subscribed.wait(on: loop))
        #expect(sink.subscribedOnLoop.value == true)

        // Asked from this thread, performed on the loop thread.
        sink.request(.max(2))
        #expect(await requested.wait(on: loop))
        // The request is performed in a closure on the loop: once the loop has run the next one, the
        // subject has the demand and is idle.
        await loop.flush()
        // Values pass through on the thread that sends them: this one.
        subject.send(1)
        #expect(await received.wait(on: loop))
        sink.cancel()
        #expect(await cancelled.wait(on: loop))
        subject.send(2)

        #expect(upstreamCalls.value == ["request max(2) on loop: true", "cancel on loop: true"])
        #expect(sink.events == [.value(1)])
        #expect(sink.threads == [false])
    }

    // MARK: delay

    @Test func delayDeliversEachValueAndTheCompletionOnTheLoopAfterTheInterval() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let sink = TimedSink<Int, TimingFailure>(loop: loop)
        subject.delay(for: .milliseconds(50), scheduler: loop).subscribe(sink)

        let sentAt = LockedBox<[LoopTime]>()
        let start = loop.now
        loop.schedule(after: start) {
            sentAt.append(loop.now)
            subject.send(1)
        }
        loop.schedule(after: start.plus(milliseconds: 20)) {
            sentAt.append(loop.now)
            subject.send(2)
        }
        loop.schedule(after: start.plus(milliseconds: 40)) {
            sentAt.append(loop.now)
            subject.send(completion: .finished)
        }

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value(1), .value(2), .finished])
        #expect(sink.threads == [true, true, true])
        let sent = sentAt.value
        #expect(sent.count == 3)
        for (index, sentTime) in sent.enumerated() {
            expectElapsed(from: sentTime, to: sink.time(at: index), atLeast: .milliseconds(45), "signal \(index)")
        }
    }

    @Test func delayDelaysAFailureToo() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let sink = TimedSink<Int, TimingFailure>(loop: loop)
        subject.delay(for: .milliseconds(50), scheduler: loop).subscribe(sink)

        let sentAt = LockedBox<LoopTime?>(nil)
        loop.schedule {
            sentAt.value = loop.now
            subject.send(1)
            subject.send(completion: .failure(.failed))
        }

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value(1), .failure(.failed)])
        #expect(sink.threads == [true, true])
        let sent = try #require(sentAt.value)
        expectElapsed(from: sent, to: sink.time(at: 0), atLeast: .milliseconds(45), "the value")
        expectElapsed(from: sent, to: sink.time(at: 1), atLeast: .milliseconds(45), "the failure")
    }

    // MARK: debounce

    @Test func debounceEmitsTheLastValueOfEachBurstOnTheLoopOnceQuiet() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let sentAt = LockedBox<[Int: LoopTime]>([:])

        /// Sends `values` 10 ms apart from now (well within the 50 ms due time), then finishes 10 ms
        /// after the last one if asked.
        @Sendable func burst(_ values: [Int], thenFinish: Bool = false) {
            let start = loop.now
            for (index, value) in values.enumerated() {
                loop.schedule(after: start.plus(milliseconds: 10 * index)) {
                    sentAt.withLock { $0[value] = loop.now }
                    subject.send(value)
                }
            }
            if thenFinish {
                loop.schedule(after: start.plus(milliseconds: 10 * values.count)) {
                    subject.send(completion: .finished)
                }
            }
        }

        // Each burst starts once the previous one's value has come out; the last one is cut short by
        // the completion, which (as in Combine) drops the value still waiting.
        let sink = TimedSink<Int, TimingFailure>(loop: loop) { event, _ in
            switch event {
            case .value(3): burst([4, 5])
            case .value(5): burst([6], thenFinish: true)
            default: break
            }
        }
        subject.debounce(for: .milliseconds(50), scheduler: loop).subscribe(sink)
        loop.schedule { burst([1, 2, 3]) }

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value(3), .value(5), .finished])
        #expect(sink.threads == [true, true, true])
        let sent = sentAt.value
        if let sent3 = sent[3], let sent5 = sent[5] {
            expectElapsed(from: sent3, to: sink.time(at: 0), atLeast: .milliseconds(45), "3 after the quiet time")
            expectElapsed(from: sent5, to: sink.time(at: 1), atLeast: .milliseconds(45), "5 after the quiet time")
        } else {
            Issue.record("values 3 and 5 were not sent: \(sent)")
        }
    }

    // MARK: throttle

    /// Sends 1 from the loop; when it comes out, sends 2, 3, 4 and, once the next value comes out,
    /// waits 150 ms (more than the 100 ms interval) and sends 5 and the completion.
    private func runThrottle(latest: Bool) async throws -> (
        sink: TimedSink<Int, TimingFailure>, firstSentAt: LoopTime, fifthSentAt: LoopTime?
    ) {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let fifthSentAt = LockedBox<LoopTime?>(nil)
        let sink = TimedSink<Int, TimingFailure>(loop: loop) { event, sink in
            guard case .value = event else { return }
            switch sink.valueCount {
            case 1:
                // Within the interval of the emission of 1: one of them waits for its end.
                subject.send(2)
                subject.send(3)
                subject.send(4)
            case 2:
                loop.schedule(after: loop.now.plus(milliseconds: 150)) {
                    fifthSentAt.value = loop.now
                    subject.send(5)
                    subject.send(completion: .finished)
                }
            default:
                break
            }
        }
        subject.throttle(for: .milliseconds(100), scheduler: loop, latest: latest).subscribe(sink)
        let firstSentAt = await loop.onLoop {
            let now = loop.now
            subject.send(1)
            return now
        }
        #expect(await sink.completed.wait(on: loop))
        return (sink, firstSentAt, fifthSentAt.value)
    }

    @Test func throttleLatestEmitsTheLatestValueOfEachIntervalOnTheLoop() async throws {
        let (sink, firstSentAt, fifthSentAt) = try await runThrottle(latest: true)
        #expect(sink.events == [.value(1), .value(4), .value(5), .finished])
        #expect(sink.threads == [true, true, true, true])
        expectElapsed(from: firstSentAt, to: sink.time(at: 0), atLeast: .zero, "1, at once")
        expectElapsed(from: firstSentAt, to: sink.time(at: 1), atLeast: .milliseconds(95), "4, an interval after 1")
        if let fifthSentAt {
            expectElapsed(from: fifthSentAt, to: sink.time(at: 2), atLeast: .zero, "5, after a quiet interval")
        }
    }

    @Test func throttleFirstEmitsTheFirstValueOfEachIntervalOnTheLoop() async throws {
        let (sink, firstSentAt, fifthSentAt) = try await runThrottle(latest: false)
        #expect(sink.events == [.value(1), .value(2), .value(5), .finished])
        #expect(sink.threads == [true, true, true, true])
        expectElapsed(from: firstSentAt, to: sink.time(at: 0), atLeast: .zero, "1, at once")
        expectElapsed(from: firstSentAt, to: sink.time(at: 1), atLeast: .milliseconds(95), "2, an interval after 1")
        if let fifthSentAt {
            expectElapsed(from: fifthSentAt, to: sink.time(at: 2), atLeast: .zero, "5, after a quiet interval")
        }
    }

    // MARK: timeout

    @Test func timeoutFinishesOnTheLoopWhenTheUpstreamGoesQuietAndCancelsIt() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let cancelledOnLoop = LockedBox<Bool?>(nil)
        let sink = TimedSink<Int, TimingFailure>(loop: loop)
        let upstream = subject.handleEvents(receiveCancel: { cancelledOnLoop.value = loop.isInLoopThread })
        let secondSentAt = LockedBox<LoopTime?>(nil)

        // Values 80 ms apart, within the 150 ms interval, keep the stream alive; then it goes quiet.
        loop.schedule {
            let start = loop.now
            upstream.timeout(.milliseconds(150), scheduler: loop).subscribe(sink)
            subject.send(1)
            loop.schedule(after: start.plus(milliseconds: 80)) {
                secondSentAt.value = loop.now
                subject.send(2)
            }
        }

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value(1), .value(2), .finished])
        #expect(sink.threads == [true, true, true])
        #expect(cancelledOnLoop.value == true, "the upstream is cancelled, on the loop thread")
        let sent = try #require(secondSentAt.value)
        expectElapsed(
            from: sent, to: sink.time(at: 2), atLeast: .milliseconds(145),
            "the timeout, an interval after the last value")
    }

    @Test func timeoutWithACustomErrorFailsOnTheLoopWithIt() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let cancelledOnLoop = LockedBox<Bool?>(nil)
        let sink = TimedSink<Int, TimingFailure>(loop: loop)

        let start = await loop.onLoop {
            let start = loop.now
            let upstream = subject.handleEvents(receiveCancel: { cancelledOnLoop.value = loop.isInLoopThread })
            upstream.timeout(.milliseconds(50), scheduler: loop, customError: { .timedOut }).subscribe(sink)
            return start
        }

        #expect(await sink.completed.wait(on: loop))
        subject.send(1)
        #expect(sink.events == [.failure(.timedOut)])
        #expect(sink.threads == [true])
        #expect(cancelledOnLoop.value == true, "the upstream is cancelled, on the loop thread")
        expectElapsed(from: start, to: sink.time(at: 0), atLeast: .milliseconds(45), "the timeout")
    }

    // MARK: collect(.byTime) and collect(.byTimeOrCount)

    @Test func collectByTimeEmitsWhatEachIntervalCollectedOnTheLoop() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        // Each group is answered by the next values, sent at once, so they fall in the next interval;
        // the last ones are flushed by the completion.
        let sink = TimedSink<[Int], TimingFailure>(loop: loop) { event, _ in
            switch event {
            case .value([1, 2, 3]):
                subject.send(4)
                subject.send(5)
            case .value([4, 5]):
                subject.send(6)
                subject.send(completion: .finished)
            default:
                break
            }
        }
        let start = await loop.onLoop {
            let start = loop.now
            subject.collect(.byTime(loop, .milliseconds(100))).subscribe(sink)
            subject.send(1)
            loop.schedule(after: start.plus(milliseconds: 20)) { subject.send(2) }
            loop.schedule(after: start.plus(milliseconds: 40)) { subject.send(3) }
            return start
        }

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value([1, 2, 3]), .value([4, 5]), .value([6]), .finished])
        #expect(sink.threads == [true, true, true, true])
        expectElapsed(from: start, to: sink.time(at: 0), atLeast: .milliseconds(95), "the first tick")
        expectElapsed(from: start, to: sink.time(at: 1), atLeast: .milliseconds(195), "the second tick")
    }

    @Test func collectByTimeOrCountEmitsFullGroupsAtOnceAndTheRestAtTheTick() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let sink = TimedSink<[Int], TimingFailure>(loop: loop) { event, _ in
            if case .value([3]) = event {
                for value in 4...7 {
                    subject.send(value)
                }
                subject.send(completion: .finished)
            }
        }
        let start = await loop.onLoop {
            let start = loop.now
            subject.collect(.byTimeOrCount(loop, .milliseconds(300), 2)).subscribe(sink)
            for value in 1...3 {
                subject.send(value)
            }
            return start
        }

        #expect(await sink.completed.wait(on: loop))
        #expect(sink.events == [.value([1, 2]), .value([3]), .value([4, 5]), .value([6, 7]), .finished])
        #expect(sink.threads == [true, true, true, true, true])
        let full = try #require(sink.time(at: 0))
        #expect(start.distance(to: full) < .milliseconds(300), "the full group comes out before the first tick")
        expectElapsed(from: start, to: sink.time(at: 1), atLeast: .milliseconds(295), "the first tick")
    }

    // MARK: measureInterval

    @Test func measureIntervalMeasuresOnTheLoopClockAndDeliversOnTheSendingThread() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let subject = PassthroughSubject<Int, TimingFailure>()
        let secondMeasured = Latch()
        let sink = TimedSink<LoopStride, TimingFailure>(loop: loop) { event, sink in
            guard case .value = event else { return }
            switch sink.valueCount {
            case 1: loop.schedule(after: loop.now.plus(milliseconds: 100)) { subject.send(2) }
            // Opened once this delivery has returned, so that the subject is idle when the test
            // thread sends (a send made during a delivery is handed to the delivering thread).
            case 2: loop.schedule { secondMeasured.open() }
            default: break
            }
        }
        loop.schedule {
            subject.measureInterval(using: loop).subscribe(sink)
            loop.schedule(after: loop.now.plus(milliseconds: 50)) { subject.send(1) }
        }
        #expect(await secondMeasured.wait(on: loop))
        // From this thread: delivered here, not on the loop.
        subject.send(3)
        subject.send(completion: .finished)

        #expect(await sink.completed.wait(on: loop))
        let intervals = sink.values
        #expect(sink.events.count == 4)
        #expect(sink.events.last == .finished)
        #expect(sink.threads == [true, true, false, false])
        #expect(intervals.count == 3)
        if intervals.count == 3 {
            #expect(intervals[0] >= .milliseconds(45), "since the subscription: \(intervals[0])")
            #expect(intervals[1] >= .milliseconds(95), "since the first value: \(intervals[1])")
            #expect(intervals[2] >= .zero)
            // Loose upper bounds for the loop-timed intervals; the last one spans the test thread's own
            // wake-up after the latch, which a loaded machine (or a sanitizer) can delay without limit.
            #expect(intervals.prefix(2).allSatisfy { $0 < .seconds(10) }, "\(intervals)")
        }
    }

    // MARK: Publishers.every

    @Test func everyTicksOnTheLoopUntilCancelled() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let third = Latch()
        let sink = TimedSink<LoopTime, Never>(loop: loop) { _, sink in
            if sink.valueCount == 3 {
                sink.cancel()
                third.open()
            }
        }
        let start = await loop.onLoop {
            let start = loop.now
            Publishers.every(.milliseconds(40), on: loop).subscribe(sink)
            return start
        }

        #expect(await third.wait(on: loop))
        await loop.wait(.milliseconds(120))
        let ticks = sink.values
        #expect(sink.events.count == 3, "no tick after a cancel on the loop thread, and no completion")
        #expect(sink.threads == [true, true, true])
        for (index, tick) in ticks.enumerated() {
            expectElapsed(from: start, to: tick, atLeast: .milliseconds(40 * (index + 1) - 5), "tick \(index + 1)")
            if let arrived = sink.time(at: index) {
                #expect(tick <= arrived, "a tick carries the time it fired at")
            }
        }
    }

    @Test func everyDropsTicksWithoutDemand() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let second = Latch()
        let third = Latch()
        let sink = TimedSink<LoopTime, Never>(loop: loop, initialDemand: .max(2)) { _, sink in
            switch sink.valueCount {
            case 2: second.open()
            case 3: third.open()
            default: break
            }
        }
        Publishers.every(.milliseconds(30), on: loop).subscribe(sink)

        #expect(await second.wait(on: loop))
        await loop.wait(.milliseconds(100))
        #expect(sink.valueCount == 2, "ticks without demand are dropped")
        let requestedAt = await loop.onLoop {
            sink.request(.max(1))
            return loop.now
        }
        #expect(await third.wait(on: loop))
        sink.cancel()
        let ticks = sink.values
        #expect(ticks.count == 3)
        #expect(sink.threads == [true, true, true])
        if ticks.count == 3 {
            expectElapsed(
                from: requestedAt, to: ticks[2], atLeast: .zero, "the tick after the new demand (not a dropped one)")
        }
    }

    // MARK: scheduler.timerPublisher(every:)

    @Test func timerPublisherTicksToEverySubscriberFromConnectUntilTheConnectionIsCancelled() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let timer = loop.timerPublisher(every: .milliseconds(40))
        let connection = LockedBox<AnyCancellable?>(nil)
        let firstDone = Latch()
        let secondDone = Latch()
        // The first subscriber cancels the connection on the loop thread at its third tick; the tick
        // under way still reaches the other subscriber.
        let first = TimedSink<LoopTime, Never>(loop: loop) { _, sink in
            if sink.valueCount == 3 {
                connection.value?.cancel()
                firstDone.open()
            }
        }
        let second = TimedSink<LoopTime, Never>(loop: loop) { _, sink in
            if sink.valueCount == 3 { secondDone.open() }
        }
        timer.subscribe(first)
        timer.subscribe(second)

        await loop.wait(.milliseconds(100))
        #expect(first.valueCount == 0 && second.valueCount == 0, "nothing before connect()")

        let connectedAt = await withCheckedContinuation { (continuation: CheckedContinuation<LoopTime, Never>) in
            loop.schedule {
                let now = loop.now
                connection.value = AnyCancellable(timer.connect())
                continuation.resume(returning: now)
            }
        }
        #expect(await firstDone.wait(on: loop))
        #expect(await secondDone.wait(on: loop))
        await loop.wait(.milliseconds(100))

        #expect(first.events.count == 3, "no tick after the connection is cancelled, and no completion")
        #expect(second.events.count == 3, "no tick after the connection is cancelled, and no completion")
        #expect(first.values == second.values, "every subscriber gets the same ticks")
        #expect(first.threads == [true, true, true])
        #expect(second.threads == [true, true, true])
        for (index, tick) in first.values.enumerated() {
            expectElapsed(
                from: connectedAt, to: tick, atLeast: .milliseconds(40 * (index + 1) - 5), "tick \(index + 1)")
        }
        // A cancelled connection leaves its subscribers subscribed (as in Combine): the test ends them.
        first.cancel()
        second.cancel()
    }

    @Test func autoconnectedTimerPublisherTicksFromTheFirstSubscriptionUntilItIsCancelled() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let third = Latch()
        let sink = TimedSink<LoopTime, Never>(loop: loop) { _, sink in
            if sink.valueCount == 3 {
                sink.cancel()
                third.open()
            }
        }
        let start = await loop.onLoop {
            let start = loop.now
            loop.timerPublisher(every: .milliseconds(40)).autoconnect().subscribe(sink)
            return start
        }

        #expect(await third.wait(on: loop))
        await loop.wait(.milliseconds(100))
        #expect(sink.events.count == 3, "cancelling the only subscriber disconnects the timer")
        #expect(sink.threads == [true, true, true])
        for (index, tick) in sink.values.enumerated() {
            expectElapsed(from: start, to: tick, atLeast: .milliseconds(40 * (index + 1) - 5), "tick \(index + 1)")
        }
    }
}
