import Testing

@testable import Ripple

/// `ObservableObjectPublisher`: a signal per `send()` to each subscriber that has requested anything.
@Suite("ObservableObjectPublisher")
struct ObservableObjectPublisherTests {
    /// Subscribes a recorder (each signal recorded as `"change"`) with `initialDemand`.
    private func record(
        _ publisher: ObservableObjectPublisher,
        initialDemand: Subscribers.Demand? = nil
    ) -> TestSubscriber<String, Never> {
        let subscriber = TestSubscriber<String, Never>(initialDemand: initialDemand)
        publisher.map { "change" }.subscribe(subscriber)
        return subscriber
    }

    @Test func signalsAfterTheFirstRequestWhateverItsSize() {
        let publisher = ObservableObjectPublisher()
        let subscriber = record(publisher)
        defer { subscriber.cancel() }
        publisher.send()
        #expect(subscriber.events == [.subscription("ObservableObjectPublisher")], "missed: nothing requested")
        subscriber.request(.max(1))
        publisher.send()
        publisher.send()
        publisher.send()
        #expect(
            subscriber.events == [
                .subscription("ObservableObjectPublisher"), .value("change"), .value("change"), .value("change"),
            ])
    }

    @Test func everySubscriberIsSignalledAndCancelledOnesNoLonger() {
        let publisher = ObservableObjectPublisher()
        let first = record(publisher, initialDemand: .unlimited)
        let second = record(publisher, initialDemand: .max(1))
        defer { second.cancel() }
        publisher.send()
        first.cancel()
        publisher.send()
        #expect(first.values == ["change"])
        #expect(second.values == ["change", "change"])
        #expect(first.completion == nil, "it never completes")
    }

    @Test func aSendFromInsideTheSubscriberIsDeliveredAfterwardsNotNested() {
        let publisher = ObservableObjectPublisher()
        var depth = 0
        var maximumDepth = 0
        var received = 0
        let cancellable = publisher.sink {
            depth += 1
            maximumDepth = max(maximumDepth, depth)
            received += 1
            if received < 3 { publisher.send() }
            depth -= 1
        }
        publisher.send()
        #expect(received == 3)
        #expect(maximumDepth == 1)
        cancellable.cancel()
    }

    @Test func concurrentSendsNeverOverlap() async {
        let publisher = ObservableObjectPublisher()
        let counter = OverlapCounter()
        let cancellable = publisher.sink { counter.enter() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 { publisher.send() }
                }
            }
        }
        #expect(counter.entries == 2_000)
        #expect(counter.overlaps == 0)
        cancellable.cancel()
    }

    @Test func descriptionAndMirror() throws {
        let publisher = ObservableObjectPublisher()
        let subscriber = record(publisher)
        defer { subscriber.cancel() }
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "ObservableObjectPublisher")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["downstream"])
        let playground = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
        #expect(playground.playgroundDescription as? String == "ObservableObjectPublisher")
    }

    @Test func theSubscriptionReleasesTheSubscriberOnCancel() {
        let publisher = ObservableObjectPublisher()
        weak var released: TestSubscriber<String, Never>?
        var subscription: (any Subscription)?
        do {
            let subscriber = record(publisher, initialDemand: .unlimited)
            released = subscriber
            subscription = subscriber.subscription
        }
        subscription?.cancel()
        #expect(released == nil)
    }
}

/// Counts entries into a callback and how many found another one still running.
final class OverlapCounter: @unchecked Sendable {
    private let lock = Lock()
    private var inside = 0
    private var entryCount = 0
    private var overlapCount = 0

    var entries: Int { lock.withLock { entryCount } }
    var overlaps: Int { lock.withLock { overlapCount } }

    /// Records an entry, stays inside for a moment (so that an overlapping entry would be seen), then leaves.
    func enter() {
        lock.withLock {
            inside += 1
            entryCount += 1
            if inside > 1 { overlapCount += 1 }
        }
        var spin = 0
        for step in 0..<200 { spin &+= step }
        lock.withLock {
            inside -= 1
            if spin < 0 { overlapCount += 1 }
        }
    }
}
