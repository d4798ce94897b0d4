import Dispatch
import Synchronization
import Testing

@testable import Ripple

#if canImport(Glibc)
import Glibc
#endif

/// A sequence that is its own iterator, counting up to `upperBound`; `state` shows how often `next()`
/// was called.
private final class CountingSequence: Sequence, IteratorProtocol, CustomStringConvertible, @unchecked Sendable {
    let upperBound: Int
    private(set) var state = 0

    init(upperBound: Int) {
        self.upperBound = upperBound
    }

    func makeIterator() -> CountingSequence { self }

    func next() -> Int? {
        defer { state += 1 }
        return state >= upperBound ? nil : state
    }

    var description: String { "Counter" }
}

/// A cheap sequence of `0..<count` for long runs: a concrete iterator, so the test measures the
/// subscription rather than the standard library's unspecialised generic range iteration.
private struct CheapCount: Sequence, IteratorProtocol {
    let count: Int
    var current = 0

    init(_ count: Int) {
        self.count = count
    }

    mutating func next() -> Int? {
        guard current < count else { return nil }
        defer { current += 1 }
        return current
    }
}

/// A subscriber that asks for one value at a time over a long sequence, counts, and measures how far the
/// stack pointer moves between the first value and later ones. Kept lean (one stored-property access per
/// value, no allocation) so ten million values stay quick in debug builds.
private final class StackProbe: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    enum Mode {
        /// Returns `.max(1)` from `receive(_:)`.
        case returnsDemand
        /// Calls `request(.max(1))` from inside `receive(_:)` and returns `.none`.
        case requestsInside
    }

    private struct Tally {
        var count = 0
        var completions = 0
        var firstStackAddress: UInt = 0
        var largestStackDrift: UInt = 0
        var subscription: (any Subscription)?

        /// Counts a value; every 100,000th (and the first) also samples the stack depth.
        mutating func count(stackAddress: () -> UInt) -> (any Subscription)? {
            count += 1
            if count % 100_000 == 0 || count == 1 {
                let address = stackAddress()
                if count == 1 {
                    firstStackAddress = address
                } else {
                    let drift = address > firstStackAddress ? address - firstStackAddress : firstStackAddress - address
                    largestStackDrift = max(largestStackDrift, drift)
                }
            }
            return subscription
        }
    }

    private let mode: Mode
    private let one = Subscribers.Demand.max(1)
    private var tally = Tally()

    var count: Int { tally.count }
    var completions: Int { tally.completions }
    var largestStackDrift: UInt { tally.largestStackDrift }

    init(mode: Mode) {
        self.mode = mode
    }

    func receive(subscription: any Subscription) {
        tally.subscription = subscription
        subscription.request(one)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        let subscription = tally.count {
            var marker = 0
            return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        }
        switch mode {
        case .returnsDemand:
            return one
        case .requestsInside:
            subscription?.request(one)
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<Never>) {
        tally.completions += 1
        tally.subscription = nil
    }
}

@Suite("Publishers.Sequence")
struct SequencePublisherTests {
    @Test func emptySequenceFinishesAtOnceWithAnEmptySubscription() {
        let counter = CountingSequence(upperBound: 0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        counter.publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .finished])
        #expect(counter.state == 1, "the iterator is asked once, at subscription")
    }

    @Test func deliversAsDemandedAndFinishesRightAfterTheLastElement() throws {
        let counter = CountingSequence(upperBound: 10)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        counter.publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Counter")])
        #expect(counter.state == 1, "one element is fetched ahead at subscription")

        subscriber.request(.max(3))
        #expect(subscriber.values == [0, 1, 2])
        subscriber.request(.max(5))
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5, 6, 7])
        let subscription = try #require(subscriber.subscription)
        subscription.request(.none)  // accepted, as in Combine
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(String(describing: subscription) == "Counter")

        // Exactly the demand for the last two: `.finished` follows without more demand.
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription("Counter")] + (0..<10).map { .value($0) } + [.finished])
        #expect(subscriber.demandViolations == 0)
        #expect(String(describing: subscription) == "Sequence")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["sequence"])
        #expect((mirror.children.first?.value as? [Int]) == [])

        subscriber.request(.max(1))
        #expect(subscriber.events.count == 12)
    }

    @Test func fetchesTheNextElementBeforeDeliveringTheCurrentOne() {
        let counter = CountingSequence(upperBound: 3)
        var statesSeen: [Int] = []
        let subscriber = TestSubscriber<Int, Never>(onValue: { _ in
            statesSeen.append(counter.state)
            return .none
        })
        defer { subscriber.cancel() }
        counter.publisher.subscribe(subscriber)
        #expect(statesSeen == [2, 3, 4])
        #expect(subscriber.events == [.subscription("Counter"), .value(0), .value(1), .value(2), .finished])
    }

    @Test func addsDemandReturnedFromReceive() {
        let counter = CountingSequence(upperBound: 10)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1),
            onValue: { $0 > 3 || $0 == 0 ? .none : .max(2) }
        )
        defer { subscriber.cancel() }
        counter.publisher.subscribe(subscriber)
        #expect(subscriber.values == [0])
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(subscriber.completion == nil)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func oneAtATimeHonoursDemand() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        (1...5).publisher.subscribe(subscriber)
        #expect(
            subscriber.events == [
                .subscription("1...5"), .value(1), .value(2), .value(3), .value(4), .value(5), .finished,
            ])
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func unlimitedDemandWithATypedFailure() {
        let subscriber = TestSubscriber<String, TestError>()
        defer { subscriber.cancel() }
        Publishers.Sequence<[String], TestError>(sequence: ["a", "b"]).subscribe(subscriber)
        #expect(subscriber.events == [.subscription(#"["a", "b"]"#), .value("a"), .value("b"), .finished])
    }

    @Test func sinkReceivesEveryElement() {
        var values: [Int] = []
        var completions: [Subscribers.Completion<Never>] = []
        let cancellable = [1, 2, 3].publisher.sink(
            receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        #expect(values == [1, 2, 3])
        #expect(completions == [.finished])
        cancellable.cancel()
    }

    @Test func cancelFromReceiveSubscriptionAfterTheFirstValue() {
        let counter = CountingSequence(upperBound: 3)
        var subscription: (any Subscription)?
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        let wrapper = AnySubscriber<Int, Never>(
            receiveSubscription: { received in
                subscription = received
                subscriber.receive(subscription: received)
                received.request(.max(1))
                received.cancel()
            },
            receiveValue: subscriber.receive(_:),
            receiveCompletion: subscriber.receive(completion:)
        )
        counter.publisher.subscribe(wrapper)
        subscription?.request(.max(1))
        #expect(subscriber.events == [.subscription("Counter"), .value(0)])
        #expect(subscription.map { String(describing: $0) } == "Sequence")
    }

    @Test func cancelInsideReceiveStopsAtOnce() {
        var subscriber: TestSubscriber<Int, Never>?
        subscriber = TestSubscriber(onValue: { value in
            if value == 2 { subscriber?.cancel() }
            return .unlimited
        })
        guard let subscriber else { return }
        (0..<10).publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("0..<10"), .value(0), .value(1), .value(2)])
    }

    @Test func cancelInsideReceiveOfTheLastElementSendsNoCompletion() {
        var subscriber: TestSubscriber<Int, Never>?
        var cancelled: (any Subscription)?
        subscriber = TestSubscriber(onValue: { value in
            if value == 3 {
                cancelled = subscriber?.subscription
                subscriber?.cancel()
            }
            return .none
        })
        guard let subscriber else { return }
        [1, 2, 3].publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3)])
        #expect(cancelled.map { String(describing: $0) } == "Sequence")
    }

    @Test func requestFromInsideReceiveIsTrampolined() {
        var depth = 0
        var maxDepth = 0
        var subscriber: TestSubscriber<Int, Never>?
        subscriber = TestSubscriber(
            initialDemand: .max(1),
            onValue: { _ in
                depth += 1
                maxDepth = max(maxDepth, depth)
                subscriber?.request(.max(1))
                depth -= 1
                return .none
            })
        guard let subscriber else { return }
        (1...5).publisher.subscribe(subscriber)
        #expect(
            subscriber.events == [
                .subscription("1...5"), .value(1), .value(2), .value(3), .value(4), .value(5), .finished,
            ])
        #expect(maxDepth == 1)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func tenMillionReturningDemandOneAtATimeDoNotGrowTheStack() {
        Self.expectFlatStack(mode: .returnsDemand)
    }

    @Test func tenMillionRequestingFromInsideReceiveDoNotGrowTheStack() {
        Self.expectFlatStack(mode: .requestsInside)
    }

    private static func expectFlatStack(mode: StackProbe.Mode) {
        let count = 10_000_000
        let probe = StackProbe(mode: mode)
        CheapCount(count).publisher.subscribe(probe)
        #expect(probe.count == count)
        #expect(probe.completions == 1)
        #expect(probe.largestStackDrift < 4096, "the stack must not grow with the number of elements")
    }

    @Test func descriptionAndMirrorShowTheSequence() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        (1...5).publisher.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "1...5")
        let reflecting = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
        #expect(reflecting.playgroundDescription as? String == "1...5")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["sequence"])
        #expect((mirror.children.first?.value as? ClosedRange<Int>) == 1...5)
        subscription.cancel()
        subscription.cancel()
        #expect(String(describing: subscription) == "Sequence")
        subscription.request(.max(3))
        #expect(subscriber.events == [.subscription("1...5")])
    }

    @Test func equatableAndSequenceProperty() {
        #expect([1, 2].publisher == Publishers.Sequence<[Int], Never>(sequence: [1, 2]))
        #expect([1, 2].publisher != [2, 1].publisher)
        #expect([1, 2].publisher.sequence == [1, 2])
    }

    @Test func releasesTheSubscriberOnCompletionAndOnCancel() throws {
        weak var finishedSubscriber: TestSubscriber<Int, Never>?
        var keptSubscription: (any Subscription)?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            finishedSubscriber = subscriber
            [1, 2].publisher.subscribe(subscriber)
            keptSubscription = subscriber.subscription
            subscriber.request(.max(2))
        }
        #expect(finishedSubscriber == nil)

        weak var cancelledSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            cancelledSubscriber = subscriber
            [1, 2].publisher.subscribe(subscriber)
            keptSubscription = subscriber.subscription
        }
        #expect(cancelledSubscriber != nil, "the live subscription holds its subscriber")
        try #require(keptSubscription).cancel()
        #expect(cancelledSubscriber == nil)
    }

    @Test func concurrentRequestsDeliverExactlyTheDemandSerially() async {
        let total = 20_000
        let inReceive = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: nil,
            onValue: { _ in
                if inReceive.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlaps.add(1, ordering: .relaxed)
                }
                inReceive.subtract(1, ordering: .sequentiallyConsistent)
                return .none
            })
        defer { subscriber.cancel() }
        (0..<total).publisher.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<(total / 4) { subscriber.request(.max(1)) }
                }
            }
        }
        #expect(subscriber.values == Array(0..<total))
        #expect(subscriber.completion == .finished)
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func concurrentRequestAndCancelKeepTheContract() async {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            (0..<1_000).publisher.subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<200 { subscriber.request(.max(3)) }
                }
                group.addTask {
                    for _ in 0..<100 { subscriber.request(.max(1)) }
                    subscriber.cancel()
                }
                group.addTask { subscriber.cancel() }
            }
            let valuesAfterCancel = subscriber.values.count
            subscriber.request(.unlimited)
            #expect(subscriber.values.count == valuesAfterCancel, "nothing after cancel")
            #expect(subscriber.values == Array(0..<valuesAfterCancel))
            #expect(subscriber.completion == nil)
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
        }
    }

    // A `Subscribers.Sink` gets a sequence's elements as one run (its closures held once for the loop).

    @Test func sinkCancelledInsideItsClosureStopsTheRunAndReleasesTheClosuresAfterIt() {
        final class Owner {}
        weak var weakOwner: Owner?
        var values: [Int] = []
        var completions = 0
        var sink: Subscribers.Sink<Int, Never>?
        do {
            let owner = Owner()
            weakOwner = owner
            sink = Subscribers.Sink(
                receiveCompletion: { _ in
                    _ = owner
                    completions += 1
                },
                receiveValue: { value in
                    _ = owner
                    values.append(value)
                    if value == 3 {
                        sink?.cancel()
                        #expect(weakOwner != nil, "kept while the run is in its closure")
                    }
                })
        }
        guard let sink else { return }
        (0..<10).publisher.subscribe(sink)
        #expect(values == [0, 1, 2, 3])
        #expect(completions == 0)
        #expect(weakOwner == nil, "released when the run ended")
        #expect(sink.receive(4) == .none, "a value after the end is ignored")
        #expect(values == [0, 1, 2, 3])
    }

    @Test func sinkRunFinishesThenReleasesTheClosures() {
        final class Owner {}
        weak var weakOwner: Owner?
        var values: [Int] = []
        var completions: [Subscribers.Completion<Never>] = []
        let sink: Subscribers.Sink<Int, Never>
        do {
            let owner = Owner()
            weakOwner = owner
            sink = Subscribers.Sink(
                receiveCompletion: { completion in
                    _ = owner
                    completions.append(completion)
                },
                receiveValue: { value in
                    _ = owner
                    values.append(value)
                })
        }
        [1, 2, 3].publisher.subscribe(sink)
        #expect(values == [1, 2, 3])
        #expect(completions == [.finished])
        #expect(weakOwner == nil)
    }

    @Test func aSinkThatHasEndedGetsNoRun() {
        var values: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        sink.cancel()
        let counter = CountingSequence(upperBound: 5)
        counter.publisher.subscribe(sink)
        #expect(values.isEmpty)
        #expect(counter.state == 1, "only the first element, fetched to know the sequence is not empty")
    }

    @Test func sinkCancelledFromAnotherThreadDuringARunStopsAndReleasesTheClosuresOnce() async {
        final class Owner: Sendable {}
        /// What the two threads share; the sink is shared on purpose (its own synchronisation is under test).
        final class Race: @unchecked Sendable {
            let delivered = Atomic<Int>(0)
            let reached = Atomic<Bool>(false)
            let cancelled = Atomic<Bool>(false)
            var sink: Subscribers.Sink<Int, Never>?
        }
        for _ in 0..<20 {
            weak var weakOwner: Owner?
            let race = Race()
            do {
                let owner = Owner()
                weakOwner = owner
                race.sink = Subscribers.Sink(
                    receiveCompletion: { _ in _ = owner },
                    receiveValue: { [unowned race] value in
                        _ = owner
                        race.delivered.add(1, ordering: .relaxed)
                        guard value == 100 else { return }
                        // The other thread cancels while this value is being delivered.
                        race.reached.store(true, ordering: .releasing)
                        while !race.cancelled.load(ordering: .acquiring) { sched_yield() }
                    })
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard let sink = race.sink else { return }
                    (0..<1_000).publisher.subscribe(sink)
                }
                group.addTask {
                    while !race.reached.load(ordering: .acquiring) { sched_yield() }
                    race.sink?.cancel()
                    race.cancelled.store(true, ordering: .releasing)
                }
            }
            #expect(race.delivered.load(ordering: .relaxed) == 101, "the run stopped after the value being delivered")
            #expect(weakOwner == nil)
        }
    }
}
