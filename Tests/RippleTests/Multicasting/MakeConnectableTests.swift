import Testing

@testable import Ripple

@Suite("MakeConnectable")
struct MakeConnectableTests {
    @Test func nothingFlowsBeforeConnectAndDisconnectStopsIt() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        connectable.subscribe(subscriber)
        upstream.send(0)
        #expect(upstream.subscriptions == 0)
        var connection = connectable.connect()
        #expect(upstream.calls == [.request(.unlimited)])
        upstream.send(1)
        upstream.send(2)
        connection.cancel()
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(3)
        connection = connectable.connect()
        #expect(upstream.subscriptions == 2)
        upstream.send(4)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Multicast"), .value(1), .value(2), .value(4), .finished])
        connection.cancel()
    }

    @Test func everySubscriberAttachedBeforeConnectSeesASynchronousUpstreamWhole() {
        let upstream = MulticastingSyncPublisher([1, 2, 3])
        let connectable = upstream.makeConnectable()
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>.oneAtATime()
        defer { second.cancel() }
        connectable.subscribe(first)
        connectable.subscribe(second)
        let connection = connectable.connect()
        #expect(first.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .finished])
        #expect(second.events == first.events)
        #expect(second.demandViolations == 0)
        #expect(upstream.subscriptions == 1)
        connection.cancel()
    }

    @Test func copiesShareOneConnectionPoint() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let copy = connectable
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        copy.subscribe(subscriber)
        let connection = connectable.connect()
        upstream.send(7)
        upstream.send(8)
        #expect(subscriber.events == [.subscription("Multicast"), .value(7)])
        connection.cancel()
    }
}
