import Glibc
import RippleTestSupport
import Synchronization
import Testing

@testable import Ripple
@testable import RippleLoop

/// A `for await` loop reading a loop-delivered `BufferedSubscription` one value at a time (the path of an
/// event stream read through `values`, issue 19's rare hang), hammered: producers on the loop thread and
/// on another thread, bursts and trickles, a consumer that yields, hops through the loop or sleeps
/// between values. A ``StallMonitor`` reports a stall with the subscription's, the iterator's and the
/// loop's state, whether the loop and the pool still answer, and whether a drain scheduled by hand
/// unsticks it (a lost wake-up) or not (a lost continuation). Any stall fails the test.
///
/// The default size is small (each value costs the consumer trips through the cooperative pool, slow in a
/// full parallel run) and runs in well under a second alone. Long runs: `RIPPLE_STRESS_VALUES` (values per stream and
/// round), `RIPPLE_STRESS_STREAMS` (streams at once), `RIPPLE_STRESS_SECONDS` (rounds until then; keep it
/// under the minute and use `--repetitions`), `RIPPLE_STRESS_STALL` (seconds without progress that count
/// as a stall).
@Suite(.timeLimit(.minutes(1))) struct DeliveryContextStressTests {
    @Test(arguments: StressShape.allCases)
    func anAwaitingLoopGetsEveryValueOfALoopDeliveredStream(shape: StressShape) async throws {
        let values = environmentNumber("RIPPLE_STRESS_VALUES") ?? 500
        let seconds = environmentNumber("RIPPLE_STRESS_SECONDS") ?? 0
        let streams = environmentNumber("RIPPLE_STRESS_STREAMS") ?? 2
        let stall = environmentNumber("RIPPLE_STRESS_STALL") ?? 20
        let thread = try EventLoopThread(name: "stress-\(shape)")
        defer { thread.stop() }
        let start = EventLoop.monotonicNow
        var rounds = 0
        var total = 0
        repeat {
            rounds += 1
            let seed = UInt64.random(in: 0...UInt64.max)
            let outcome = await withTaskGroup(of: StressOutcome.self) { group in
                for index in 0..<streams {
                    group.addTask {
                        await StressRun(
                            loop: thread.loop, shape: shape, values: values, seed: seed &+ UInt64(index),
                            stallSeconds: stall
                        ).run()
                    }
                }
                var outcomes: [StressOutcome] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            for run in outcome {
                total += run.consumed
                if let problem = run.problem {
                    Issue.record("\(shape) round \(rounds) seed \(run.seed): \(problem)")
                }
            }
            if outcome.contains(where: { $0.problem != nil }) { break }
        } while (EventLoop.monotonicNow - start) / 1_000_000_000 < seconds
        let elapsed = Double(EventLoop.monotonicNow - start) / 1e9
        if seconds > 0 {
            print("stress \(shape): \(rounds) rounds, \(total) values, \(elapsed) s")
        }
    }
}

/// Where the values come from and how the consumer reads them.
enum StressShape: String, CaseIterable, CustomStringConvertible, Sendable {
    /// Chunks offered on the loop thread, each chunk a scheduled closure; a never-failing `values`.
    case loopChunks
    /// Every value offered in one closure on the loop thread (as StreamValuesTests does); throwing
    /// `values`.
    case loopBurst
    /// Offered from another thread; throwing `values` through `tryMap`.
    case otherThread
    /// Half on the loop thread, half from another thread at once.
    case mixed

    var description: String { rawValue }
}

/// The number in the environment variable `name`, if set.
private func environmentNumber(_ name: String) -> Int? {
    getenv(name).flatMap { Int(String(cString: $0)) }
}

struct StressOutcome: Sendable {
    let seed: UInt64
    let consumed: Int
    let problem: String?
}

/// The publisher: its one subscriber gets a `BufferedSubscription` delivering on the loop.
final class LoopDeliveredStream<Failure: Error>: Publisher, Sendable {
    typealias Output = Int
    typealias Member = BufferedSubscription<AnySubscriber<Int, Failure>>

    let loop: EventLoop
    let counters = StreamCounters()
    let member = LockedBox<Member?>(nil)

    init(loop: EventLoop) {
        self.loop = loop
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
        let subscription = Member(
            downstream: AnySubscriber(subscriber), capacity: Int.max, overflow: .dropNewest, counters: counters,
            context: .loop(loop), description: "stress")
        subscriber.receive(subscription: subscription)
        member.value = subscription
        nonisolated(unsafe) let erased: Any = subscriber
        describeDownstream.value = { describeObject(erased) }
    }

    /// Describes the concrete subscriber (an `AsyncIteratorSubscriber`, or `tryMap`'s inner subscriber).
    let describeDownstream = LockedBox<(@Sendable () -> String)?>(nil)

    /// The subscription's state, read under its lock.
    func describeState() -> String {
        guard let subscription = member.value else { return "no subscription" }
        let state = subscription.lock.withLock { subscription.state }
        var text =
            "subscription: demand \(state.demand) waiting \(state.buffer.count) delivering \(state.delivering)"
            + " completion \(state.completion.map { "\($0)" } ?? "nil") live \(state.downstream != nil)"
            + " received \(counters.received) delivered \(counters.delivered)"
        if state.downstream != nil, let describe = describeDownstream.value {
            text += "\n  downstream: \(describe())"
        }
        return text
    }
}

/// A shallow description of an object's stored properties (racy reads: for a stall report only).
func describeObject(_ value: Any, depth: Int = 3) -> String {
    let mirror = Mirror(reflecting: value)
    guard depth > 0, !mirror.children.isEmpty else { return String(describing: value).prefix(300).description }
    let parts = mirror.children.map { child -> String in
        let label = child.label ?? "_"
        let childMirror = Mirror(reflecting: child.value)
        if childMirror.displayStyle == .class || childMirror.displayStyle == .struct
            || childMirror.displayStyle == .enum
        {
            return "\(label): \(describeObject(child.value, depth: depth - 1))"
        }
        return "\(label): \(String(describing: child.value).prefix(200))"
    }
    return "\(mirror.subjectType){" + parts.joined(separator: ", ") + "}"
}

/// What the consumer is doing (for the stall report).
enum ConsumerPhase: Int {
    case body = 0
    case awaitingNext, yielding, hoppingThroughLoop, sleeping, done
}

/// One stream, its producers and its awaiting consumer.
struct StressRun: Sendable {
    let loop: EventLoop
    let shape: StressShape
    let values: Int
    let seed: UInt64
    let stallSeconds: Int

    func run() async -> StressOutcome {
        switch shape {
        case .loopChunks:
            let stream = LoopDeliveredStream<Never>(loop: loop)
            return await consume(stream, sequence: stream.values)
        case .loopBurst, .mixed:
            let stream = LoopDeliveredStream<StressError>(loop: loop)
            return await consume(stream, sequence: stream.values)
        case .otherThread:
            let stream = LoopDeliveredStream<Never>(loop: loop)
            return await consume(stream, sequence: stream.tryMap { $0 }.values)
        }
    }

    private func consume<F: Error, S: AsyncSequence>(_ stream: LoopDeliveredStream<F>, sequence: S) async
        -> StressOutcome where S.Element == Int
    {
        let phase = Atomic<Int>(0)
        let loop = loop
        var iterator = sequence.makeAsyncIterator()
        guard let member = stream.member.value else {
            return StressOutcome(seed: seed, consumed: 0, problem: "not subscribed at once")
        }
        let monitor = StallMonitor(
            expected: shape == .mixed ? 2 * values : values, threshold: .seconds(stallSeconds),
            probes: [
                .loop { loop.schedule($0) }, .cooperativePool,
                StallMonitor.Probe("a drain scheduled on the loop") { answer in
                    loop.schedule {
                        member.drain()
                        answer()
                    }
                },
            ],
            describe: {
                "consumer \(ConsumerPhase(rawValue: phase.load(ordering: .relaxed)).map { "\($0)" } ?? "?"); "
                    + stream.describeState() + "; loop: \(describeObject(loop, depth: 1))"
            })
        startProducers(member)

        var generator = SplitMix(seed: seed)
        var expectedLoop = 0
        var expectedOther = 0
        var count = 0
        var problem: String?
        func enter(_ newPhase: ConsumerPhase) {
            phase.store(newPhase.rawValue, ordering: .relaxed)
        }
        do {
            while true {
                enter(.awaitingNext)
                guard let value = try await iterator.next() else { break }
                enter(.body)
                count += 1
                monitor.advance()
                let fromOther = value >= Self.otherBase
                let sequenceNumber = fromOther ? value - Self.otherBase : value
                if fromOther {
                    if sequenceNumber != expectedOther, problem == nil {
                        problem = "other-thread value \(sequenceNumber), expected \(expectedOther)"
                    }
                    expectedOther = sequenceNumber + 1
                } else {
                    if sequenceNumber != expectedLoop, problem == nil {
                        problem = "loop value \(sequenceNumber), expected \(expectedLoop)"
                    }
                    expectedLoop = sequenceNumber + 1
                }
                switch generator.next() % 64 {
                case 0..<24:
                    break
                case 24..<48:
                    enter(.yielding)
                    await Task.yield()
                case 48..<58:
                    enter(.yielding)
                    await Task.yield()
                    await Task.yield()
                case 58..<63:
                    enter(.hoppingThroughLoop)
                    await loop.perform {}
                default:
                    if generator.next() % 16 == 0 {
                        enter(.sleeping)
                        try? await Task.sleep(for: .microseconds(20))
                    }
                }
            }
        } catch {
            problem = problem ?? "failed: \(error)"
        }
        enter(.done)
        let stalls = monitor.finish()
        let expected = shape == .mixed ? 2 * values : values
        if problem == nil, count != expected {
            problem = "ended after \(count) of \(expected) values"
        }
        if !stalls.isEmpty {
            problem = (problem.map { $0 + "; " } ?? "") + stalls.joined(separator: "; ")
        }
        return StressOutcome(seed: seed, consumed: count, problem: problem)
    }

    static let otherBase = 1 << 40

    private func startProducers<F: Error>(_ member: BufferedSubscription<AnySubscriber<Int, F>>) {
        let values = values
        let loop = loop
        let seed = seed
        let producers = shape == .mixed ? 2 : 1
        let remaining = Atomic<Int>(producers)
        let finish: @Sendable () -> Void = {
            if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                member.finish(.finished)
            }
        }
        switch shape {
        case .loopChunks, .mixed:
            LoopProducer(
                loop: loop, member: member, values: values, seed: seed, maxChunk: 300, finish: finish
            ).schedule(from: 0)
        case .loopBurst:
            LoopProducer(
                loop: loop, member: member, values: values, seed: seed, maxChunk: values, finish: finish
            ).schedule(from: 0)
        case .otherThread:
            break
        }
        if shape == .otherThread || shape == .mixed {
            let base = shape == .mixed ? Self.otherBase : 0
            startDetachedThread {
                var generator = SplitMix(seed: seed ^ 0x5555)
                var next = 0
                while next < values {
                    // Keeps the backlog bounded without involving the loop.
                    while member.waiting > 20_000 { usleep(200) }
                    let chunk = Int(generator.next() % 200) + 1
                    let end = Swift.min(values, next + chunk)
                    while next < end {
                        member.offer(base + next)
                        next += 1
                    }
                    if generator.next() % 4 == 0 { sched_yield() }
                }
                finish()
            }
        }
    }
}

/// Offers values on the loop thread in chunks, one scheduled closure per chunk.
struct LoopProducer<F: Error>: Sendable {
    let loop: EventLoop
    let member: BufferedSubscription<AnySubscriber<Int, F>>
    let values: Int
    let seed: UInt64
    let maxChunk: Int
    let finish: @Sendable () -> Void

    func schedule(from next: Int) {
        loop.schedule { self.produce(from: next) }
    }

    private func produce(from start: Int) {
        precondition(loop.isInLoopThread)
        if member.waiting > 20_000 {
            // Bounded backlog: come back in a millisecond (the loop keeps delivering meanwhile).
            loop.schedule(after: loop.now.advanced(by: .milliseconds(1))) { self.produce(from: start) }
            return
        }
        var generator = SplitMix(seed: seed &+ UInt64(start))
        let chunk = maxChunk >= values ? values : Int(generator.next() % UInt64(maxChunk)) + 1
        let end = Swift.min(values, start + chunk)
        for value in start..<end {
            member.offer(value)
        }
        if end == values {
            finish()
        } else {
            schedule(from: end)
        }
    }
}

/// A failure type for the throwing shapes (never sent).
struct StressError: Error {}

/// A small deterministic generator.
struct SplitMix: Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body` on a new detached thread (outside Dispatch's and the cooperative pool's threads).
func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var handle = pthread_t()
    let status = pthread_create(
        &handle, nil,
        { argument in
            guard let argument else { return nil }
            Unmanaged<Box>.fromOpaque(argument).takeRetainedValue().body()
            return nil
        }, box)
    precondition(status == 0, "pthread_create: \(status)")
    pthread_detach(handle)
}
