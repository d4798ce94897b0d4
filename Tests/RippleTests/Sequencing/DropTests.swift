import Dispatch
import Testing

@testable import Ripple

/// An equatable publisher, for the `Equatable` conformances of operator publishers.
private struct EquatablePublisher: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = Never
    let id: Int
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}

@Suite("dropFirst (Publishers.Drop)")
struct DropTests {
    @Test func dropsTheFirstValuesAndRequestsThemUpFront() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(42), onValue: { _ in .max(3) })
        defer { subscriber.cancel() }
        publisher.dropFirst(2).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Drop")])
        #expect(publisher.calls == [.request(.max(44))])

        #expect(publisher.send(1) == .none)
        #expect(publisher.send(2) == .none)
        #expect(publisher.send(3) == .max(3))
        #expect(publisher.send(4) == .max(3))
        publisher.send(completion: .finished)
        publisher.send(completion: .failure(.oops))
        #expect(publisher.send(5) == .none)
        #expect(subscriber.events == [.subscription("Drop"), .value(3), .value(4), .finished])
        #expect(publisher.calls == [.request(.max(44))])
    }

    @Test func dropsOneByDefaultAndRequestsItWithoutDownstreamDemand() throws {
        let publisher = TestPublisher<Int, Never>()
        let drop = publisher.dropFirst()
        #expect(drop.count == 1)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        drop.subscribe(subscriber)
        #expect(publisher.calls == [.request(.max(1))])
        publisher.send(1)
        try #require(subscriber.subscription).request(.max(2))
        #expect(publisher.calls == [.request(.max(1)), .request(.max(2))])
        publisher.send(2)
        #expect(subscriber.values == [2])
    }

    @Test func dropFirstZeroPassesDemandThrough() throws {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        publisher.dropFirst(0).subscribe(subscriber)
        #expect(publisher.calls == [])
        try #require(subscriber.subscription).request(.max(42))
        #expect(publisher.calls == [.request(.max(42))])
        #expect(publisher.send(1) == .max(1))
        publisher.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("Drop"), .value(1), .failure(.oops)])
    }

    @Test func demandRequestedBeforeTheUpstreamSubscribesIsAddedToTheCount() {
        // A publisher that hands out its subscription only later.
        final class LatePublisher: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = AnySubscriber(subscriber)
            }
        }
        let late = LatePublisher()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(5))
        defer { subscriber.cancel() }
        late.dropFirst(3).subscribe(subscriber)
        subscriber.request(.max(2))
        let upstream = TestPublisher<Int, Never>()
        let link = TestPublisher<Int, Never>.TestSubscription(publisher: upstream)
        late.subscriber?.receive(subscription: link)
        #expect(upstream.calls == [.request(.max(10))])
        let second = TestPublisher<Int, Never>()
        late.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: second))
        #expect(second.calls == [.cancel])
    }

    @Test func cancelStopsEverythingAndIsIdempotent() throws {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        publisher.dropFirst(1).subscribe(subscriber)
        publisher.send(1)
        publisher.send(2)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(5))
        #expect(publisher.send(3) == .none)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Drop"), .value(2)])
        #expect(publisher.calls == [.request(.max(3)), .cancel])
    }

    @Test func honoursDemandOneAtATimeWithoutGrowingTheStack() {
        let source = SequencingSyncPublisher<Int, Never>(Array(0..<20_000))
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        source.dropFirst(5).subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(5..<20_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func descriptionsAndEquality() throws {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        publisher.dropFirst(3).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Drop")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Drop")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(EquatablePublisher(id: 1).dropFirst(2) == EquatablePublisher(id: 1).dropFirst(2))
        #expect(EquatablePublisher(id: 1).dropFirst(2) != EquatablePublisher(id: 1).dropFirst(3))
        #expect(EquatablePublisher(id: 1).dropFirst(2) != EquatablePublisher(id: 2).dropFirst(2))
    }

    @Test func negativeCountTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = TestPublisher<Int, Never>().dropFirst(-1).sink { _ in }
        }
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().dropFirst().subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func concurrentRequestsDeliverExactlyWhatWasDemanded() {
        for _ in 0..<50 {
            let source = SequencingSyncPublisher<Int, Never>(Array(0..<1_000))
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            defer { subscriber.cancel() }
            source.dropFirst(10).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<50 { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values.elementsEqual(10..<410))
            #expect(subscriber.demandViolations == 0)
        }
    }

    /// As in Combine, a value that comes before the upstream's subscription counts toward the values to drop
    /// and then passes on: the downstream already has its subscription.
    @Test func aValueBeforeTheUpstreamsSubscriptionCountsAndPassesOnAsInCombine() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.dropFirst(1).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .max(42))
        #expect(subscriber.events == [.subscription("Drop"), .value(2)])
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        #expect(upstream.send(3) == .max(42))
        #expect(subscriber.events == [.subscription("Drop"), .value(2), .value(3)])
    }

    /// dropFirst hands the downstream its subscription before it subscribes to the upstream, so a downstream
    /// that follows the contract can cancel before the upstream's subscription arrives (from an upstream that
    /// subscribes late). Combine forgets that cancel, asks the late subscription for the values to drop and
    /// passes on what follows; Ripple keeps it and cancels the late subscription ("Differences from Combine").
    @Test func aCancelBeforeTheUpstreamsSubscriptionIsKept() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.dropFirst(3).subscribe(subscriber)
        subscriber.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [.cancel])
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("Drop")])
    }
}
