import Ripple
import Testing

@testable import RippleBlueZ

/// An event stream's guarantees under a subscriber that releases one value at a time while events keep
/// arriving: exactly what arrives, exactly what is counted as dropped, and the failure that says so.
@Suite struct EventSubjectTests {
    private func subject(_ capacity: Int, _ policy: EventBufferPolicy) -> EventSubject<Int, BluetoothError> {
        EventSubject(buffering: EventBuffering(capacity: capacity, policy: policy), name: "test events")
    }

    @Test func underDropOldestASlowSubscriberSeesTheLatestAndTheDropsAreCounted() {
        let events = subject(4, .dropOldest)
        let slow = SlowSubscriber<Int, BluetoothError>()
        events.subscribe(slow)
        slow.release()
        events.send(0)
        #expect(slow.values == [0])
        for value in 1...6 { events.send(value) }
        // 1…4 filled the buffer; 5 and 6 pushed out 1 and 2.
        #expect(slow.values == [0])
        #expect(events.statistics.dropped == 2)
        slow.release()
        #expect(slow.values == [0, 3])
        events.send(7)
        #expect(events.statistics.dropped == 2)
        events.send(8)
        #expect(events.statistics.dropped == 3)
        for _ in 0..<4 { slow.release() }
        #expect(slow.values == [0, 3, 5, 6, 7, 8])
        #expect(events.statistics.received == 9)
        #expect(events.statistics.delivered == 6)
        #expect(events.statistics.dropped == 3)
        #expect(slow.completion == nil)
        slow.cancel()
        #expect(events.subscriptionCount == 0)
    }

    @Test func underDropNewestASlowSubscriberSeesTheFirstAndTheDropsAreCounted() {
        let events = subject(3, .dropNewest)
        let slow = SlowSubscriber<Int, BluetoothError>()
        events.subscribe(slow)
        for value in 0..<10 { events.send(value) }
        #expect(events.statistics.dropped == 7)
        slow.release(2)
        #expect(slow.values == [0, 1])
        for value in 10...12 { events.send(value) }
        // 2 was waiting: 10 and 11 joined it, 12 was dropped.
        #expect(events.statistics.dropped == 8)
        slow.release(5)
        #expect(slow.values == [0, 1, 2, 10, 11])
        // The demand left over takes the next values straight away.
        events.send(13)
        #expect(slow.values == [0, 1, 2, 10, 11, 13])
        #expect(events.statistics.received == 14)
        #expect(events.statistics.delivered == 6)
        #expect(events.statistics.dropped == 8)
        slow.cancel()
    }

    @Test func underFailStreamTheOverflowFailsAtOnceAndCountsWhatWasWaiting() {
        let events = subject(2, .failStream)
        let slow = SlowSubscriber<Int, BluetoothError>()
        events.subscribe(slow)
        slow.release()
        events.send(0)
        events.send(1)
        events.send(2)
        #expect(slow.completion == nil)
        // The third waiting value overflows: the subscriber, though it demands nothing, is failed now.
        events.send(3)
        #expect(slow.values == [0])
        guard case .failure(let error)? = slow.completion else {
            Issue.record("the stream did not fail: \(String(describing: slow.completion))")
            return
        }
        #expect(error.kind == .bufferOverflow)
        #expect(error.message.contains("test events"))
        #expect(events.statistics.dropped == 3)
        events.send(4)
        slow.release()
        #expect(slow.values == [0])
        #expect(events.statistics.received == 4)
        #expect(events.subscriptionCount == 0)
    }

    @Test func aStreamThatCannotFailFinishesOnOverflowWithItsDropsCounted() {
        let statistics = EventStatistics()
        let events = EventSubject<Int, Never>(
            buffering: EventBuffering(capacity: 1, policy: .failStream), statistics: statistics, name: "never")
        let slow = SlowSubscriber<Int, Never>()
        events.subscribe(slow)
        events.send(0)
        events.send(1)
        #expect(slow.completion == .finished)
        #expect(slow.values == [])
        #expect(statistics.dropped == 2)
    }

    @Test func aSinkNeverBuffersNorDrops() {
        let events = subject(1, .failStream)
        var seen: [Int] = []
        let cancellable = events.sink(receiveCompletion: { _ in }, receiveValue: { seen.append($0) })
        for value in 0..<1_000 { events.send(value) }
        #expect(seen == Array(0..<1_000))
        #expect(events.statistics.dropped == 0)
        cancellable.cancel()
        #expect(events.subscriptionCount == 0)
    }

    @Test func theCompletionComesAfterTheWaitingValuesAsDemandAllows() {
        let events = subject(8, .failStream)
        let slow = SlowSubscriber<Int, BluetoothError>()
        events.subscribe(slow)
        for value in 0..<3 { events.send(value) }
        events.send(completion: .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        events.send(3)
        slow.release(2)
        #expect(slow.values == [0, 1])
        #expect(slow.completion == nil)
        slow.release()
        #expect(slow.values == [0, 1, 2])
        #expect(slow.completion == .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        #expect(events.statistics.received == 3)
    }

    @Test func anEventSentWhileTheSubscriptionIsHandedOverIsKept() {
        // Events sent while the subscriber is being handed its subscription (here from inside the handover,
        // as another thread may) wait in its buffer: none is lost, and none reaches it before its subscription.
        let events = subject(8, .failStream)
        let slow = SlowSubscriber<Int, BluetoothError>(initialDemand: .max(1))
        events.handleEvents(receiveSubscription: { _ in
            events.send(0)
            events.send(1)
        }).subscribe(slow)
        #expect(slow.values == [0])
        slow.release()
        #expect(slow.values == [0, 1])
        events.send(2)
        slow.release()
        #expect(slow.values == [0, 1, 2])
        #expect(events.statistics.received == 3)
        #expect(events.statistics.dropped == 0)
        slow.cancel()
        #expect(events.subscriptionCount == 0)
    }

    @Test func aCompletionSentWhileTheSubscriptionIsHandedOverComesAfterItAndTheEventsBefore() {
        let events = subject(8, .failStream)
        let slow = SlowSubscriber<Int, BluetoothError>()
        events.handleEvents(receiveSubscription: { _ in
            events.send(0)
            events.send(completion: .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        }).subscribe(slow)
        #expect(slow.values == [])
        #expect(slow.completion == nil)
        slow.release()
        #expect(slow.values == [0])
        #expect(slow.completion == .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        #expect(events.subscriptionCount == 0)
    }

    @Test func anOverflowDuringTheHandoverFailsTheStreamOnlyOnceTheSubscriberHasIt() {
        let events = subject(1, .failStream)
        let order = OrderLog()
        order.keep(
            events.handleEvents(receiveSubscription: { _ in
                events.send(0)
                events.send(1)
                order.append("handover ends")
            }).sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { order.append("failed: \(error.kind)") }
                }, receiveValue: { order.append("value \($0)") }))
        #expect(order.entries == ["handover ends", "failed: bufferOverflow"])
        #expect(events.statistics.dropped == 2)
        #expect(events.subscriptionCount == 0)
    }

    @Test func aSubscriberAfterTheEndGetsTheCompletionAtOnce() {
        let events = subject(8, .failStream)
        events.send(completion: .finished)
        let late = SlowSubscriber<Int, BluetoothError>()
        events.subscribe(late)
        #expect(late.completion == .finished)
        #expect(events.subscriptionCount == 0)
    }

    @Test func eachPublisherCountsItsOwnSubscribersWithItsOwnBuffer() {
        let events = subject(8, .failStream)
        let logStatistics = EventStatistics()
        let displayStatistics = EventStatistics()
        let log = SlowSubscriber<Int, BluetoothError>()
        let display = SlowSubscriber<Int, BluetoothError>()
        events.publisher(buffering: EventBuffering(capacity: 100, policy: .dropNewest), statistics: logStatistics)
            .subscribe(log)
        events.publisher(buffering: EventBuffering(capacity: 1, policy: .dropOldest), statistics: displayStatistics)
            .subscribe(display)
        for value in 0..<5 { events.send(value) }
        log.release(5)
        display.release(5)
        #expect(log.values == [0, 1, 2, 3, 4])
        #expect(display.values == [4])
        #expect(logStatistics.dropped == 0)
        #expect(displayStatistics.dropped == 4)
        #expect(events.statistics.received == 0)
        log.cancel()
        display.cancel()
        #expect(events.subscriptionCount == 0)
    }

    @Test func aSubscriberThatCancelsOnItsFirstValueGetsNoMore() {
        let events = subject(8, .failStream)
        let box = CancelOnFirst()
        events.subscribe(box.subscriber)
        box.subscriber.release(5)
        events.send(0)
        events.send(1)
        #expect(box.subscriber.values == [0])
        #expect(events.subscriptionCount == 0)
    }

    @Test func theDropTotalIsAStateStream() {
        let events = subject(1, .dropNewest)
        let early = SlowSubscriber<Int, Never>()
        events.statistics.drops.subscribe(early)
        early.release()
        #expect(early.values == [0])
        let slow = SlowSubscriber<Int, BluetoothError>()
        events.subscribe(slow)
        for value in 0..<5 { events.send(value) }
        // The total coalesces to the latest while the drops subscriber has no demand.
        early.release()
        #expect(early.values == [0, 4])
        let late = SlowSubscriber<Int, Never>(initialDemand: .unlimited)
        events.statistics.drops.subscribe(late)
        #expect(late.values == [4])
        early.cancel()
        late.cancel()
        slow.cancel()
    }
}

/// A slow subscriber that cancels its own subscription inside its first `receive(_:)`.
private final class CancelOnFirst: Sendable {
    let subscriber: SlowSubscriber<Int, BluetoothError>

    init() {
        let holder = Holder()
        subscriber = SlowSubscriber(onValue: { _ in holder.cancel() })
        holder.set(subscriber)
    }

    private final class Holder: Sendable {
        private let lock = Lock()
        nonisolated(unsafe) private weak var subscriber: SlowSubscriber<Int, BluetoothError>?
        func set(_ subscriber: SlowSubscriber<Int, BluetoothError>) { lock.withLock { self.subscriber = subscriber } }
        func cancel() { lock.withLock { subscriber }?.cancel() }
    }
}

/// What a test's subscriber saw, in order, and the subscription it keeps.
private final class OrderLog: Sendable {
    private let lock = Lock()
    private nonisolated(unsafe) var recorded: [String] = []
    private nonisolated(unsafe) var kept: [AnyCancellable] = []

    var entries: [String] { lock.withLock { recorded } }

    func append(_ entry: String) {
        lock.withLock { recorded.append(entry) }
    }

    func keep(_ cancellable: AnyCancellable) {
        lock.withLock { kept.append(cancellable) }
    }
}
