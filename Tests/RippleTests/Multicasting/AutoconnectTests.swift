import Dispatch
import Testing

@testable import Ripple

@Suite("Autoconnect")
struct AutoconnectTests {
    @Test func connectsOnFirstSubscriberAndDisconnectsAfterTheLastCancel() {
        let connectable = MulticastingRecordingConnectable<Int, TestError>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        #expect(connectable.history.isEmpty)
        let first = TestSubscriber<Int, TestError>(initialDemand: .max(101), onValue: { _ in .max(201) })
        defer { first.cancel() }
        let second = TestSubscriber<Int, TestError>(initialDemand: .max(102), onValue: { _ in .max(202) })
        defer { second.cancel() }
        let third = TestSubscriber<Int, TestError>(initialDemand: .max(103), onValue: { _ in .max(203) })
        defer { third.cancel() }
        autoconnect.subscribe(first)
        #expect(connectable.history == [.connect])
        autoconnect.subscribe(second)
        autoconnect.subscribe(third)
        #expect(connectable.history == [.connect])
        // Values and completion pass through unchanged, returned demand included.
        #expect(connectable.upstream.send(1) == .max(203))
        // Kept past the completion, so that the cancels after it reach the subscriptions.
        let kept = [first, second, third].map(\.subscription)
        connectable.upstream.send(completion: .finished)
        second.cancel()
        third.cancel()
        #expect(connectable.history == [.connect])
        first.cancel()
        #expect(connectable.history == [.connect, .disconnect])
        // Cancelling the same subscription again does not count twice.
        first.cancel()
        #expect(connectable.history == [.connect, .disconnect])
        #expect(
            connectable.upstream.calls == [
                .request(.max(101)), .request(.max(102)), .request(.max(103)), .cancel, .cancel, .cancel, .cancel,
            ])
        #expect(third.events == [.subscription("TestSubscription"), .value(1), .finished])
        #expect(connectable.subscriberDescriptions == ["Autoconnect", "Autoconnect", "Autoconnect"])
        withExtendedLifetime(kept) {}
    }

    @Test func reflectsAsCombineDoes() throws {
        final class Capturing: ConnectablePublisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: (any Subscriber)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber
            }
            func connect() -> any Cancellable { AnyCancellable {} }
        }
        let connectable = Capturing()
        // The captured subscriber keeps the autoconnect, which keeps the connectable.
        defer { connectable.subscriber = nil }
        let autoconnect = connectable.autoconnect()
        autoconnect.subscribe(TestSubscriber<Int, Never>())
        let subscriber = try #require(connectable.subscriber)
        #expect(String(describing: subscriber) == "Autoconnect")
        let mirror = try #require((subscriber as? any CustomReflectable)?.customMirror)
        #expect(mirror.children.map(\.label) == ["parent", "downstream"])
        #expect((mirror.children.first?.value as? Publishers.Autoconnect<Capturing>) === autoconnect)
        #expect(
            (subscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Autoconnect")
    }

    @Test func doubleCancelOfOneSubscriberDoesNotDisconnectTheOthers() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        autoconnect.subscribe(first)
        autoconnect.subscribe(second)
        first.cancel()
        first.cancel()
        #expect(connectable.history == [.connect])
        second.cancel()
        #expect(connectable.history == [.connect, .disconnect])
    }

    @Test func reconnectsForASubscriberAfterDisconnection() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        autoconnect.subscribe(first)
        first.cancel()
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        autoconnect.subscribe(second)
        #expect(connectable.history == [.connect, .disconnect, .connect])
        second.cancel()
        #expect(connectable.history == [.connect, .disconnect, .connect, .disconnect])
        #expect(connectable.liveConnections == 0)
    }

    @Test func completionDoesNotDisconnect() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        autoconnect.subscribe(first)
        connectable.upstream.send(completion: .finished)
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        autoconnect.subscribe(second)
        #expect(connectable.history == [.connect])
        #expect(first.completion == .finished)
    }

    @Test func subscriptionKeepsTheUpstreamDescription() {
        let upstream = TestPublisher<Int, Never>()
        let autoconnect = upstream.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        autoconnect.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Multicast")])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func forwardsTheUpstreamSubscriptionsIdentifier() {
        final class Probe: Publisher, ConnectablePublisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            let subscription = MulticastingRecordingSubscription()
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                subscriber.receive(subscription: subscription)
            }
            func connect() -> any Cancellable { AnyCancellable {} }
        }
        let probe = Probe()
        nonisolated(unsafe) var received: (any Subscription)?
        probe.autoconnect().subscribe(AnySubscriber<Int, Never>(receiveSubscription: { received = $0 }))
        #expect(received?.combineIdentifier == probe.subscription.combineIdentifier)
        #expect(received.map { String(describing: $0) } == "Recording")
        received?.request(.max(4))
        #expect(probe.subscription.calls == [.request(.max(4))])
    }

    @Test func reentrantSubscribeWhileSubscribingConnectsOnce() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        let inner = TestSubscriber<Int, Never>()
        defer { inner.cancel() }
        let outer = AnySubscriber<Int, Never>(receiveSubscription: { subscription in
            autoconnect.subscribe(inner)
            subscription.request(.unlimited)
        })
        autoconnect.subscribe(outer)
        // Combine would call connect() twice here; Ripple keeps a single connection.
        #expect(connectable.history == [.connect])
        inner.cancel()
        #expect(connectable.history == [.connect])
        #expect(connectable.upstream.subscriptions == 2)
    }

    @Test func subscriberArrivingInsideConnectSharesThatConnection() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        connectable.onConnect = { autoconnect.subscribe(late) }
        defer { connectable.onConnect = nil }  // it keeps the autoconnect, which keeps the connectable
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        autoconnect.subscribe(first)
        #expect(connectable.history == [.connect])
        first.cancel()
        late.cancel()
        #expect(connectable.history == [.connect, .disconnect])
    }

    @Test func cancelDuringConnectCancelsTheConnectionWhenConnectReturns() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        let autoconnect = connectable.autoconnect()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        connectable.onConnect = { subscriber.cancel() }
        autoconnect.subscribe(subscriber)
        #expect(connectable.history == [.connect, .disconnect])
        #expect(connectable.liveConnections == 0)
        connectable.onConnect = nil
        autoconnect.subscribe(TestSubscriber<Int, Never>())
        #expect(connectable.history == [.connect, .disconnect, .connect])
    }

    @Test func upstreamIsExposed() {
        let connectable = MulticastingRecordingConnectable<Int, Never>()
        defer { connectable.upstream.detachSubscribers() }
        #expect(connectable.autoconnect().upstream === connectable)
    }

    @Test func concurrentSubscribersAndCancelsLeaveNoConnectionBehind() {
        for _ in 0..<20 {
            let connectable = MulticastingRecordingConnectable<Int, Never>()
            let autoconnect = connectable.autoconnect()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<200 {
                    let subscriber = TestSubscriber<Int, Never>()
                    autoconnect.subscribe(subscriber)
                    subscriber.cancel()
                }
            }
            #expect(connectable.liveConnections == 0)
            let history = connectable.history
            #expect(history.filter { $0 == .connect }.count == history.filter { $0 == .disconnect }.count)
            let keeper = TestSubscriber<Int, Never>()
            autoconnect.subscribe(keeper)
            #expect(connectable.liveConnections == 1)
            keeper.cancel()
            #expect(connectable.liveConnections == 0)
            // The connectable's upstream keeps its subscribers, which keep the autoconnect that keeps it.
            connectable.upstream.detachSubscribers()
        }
    }
}
