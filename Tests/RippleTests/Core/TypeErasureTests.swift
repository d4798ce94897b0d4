import Dispatch
import Testing

@testable import Ripple

@Suite("AnySubscriber, AnyPublisher, Subscriptions.empty")
struct TypeErasureTests {
    @Test func anySubscriberForwardsAndDescribes() {
        let inner = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { inner.cancel() }
        let erased = AnySubscriber(inner)
        #expect(erased.combineIdentifier == inner.combineIdentifier)
        #expect(erased.description == "TestSubscriber")
        #expect(AnySubscriber(erased).combineIdentifier == inner.combineIdentifier)
        let publisher = TestPublisher<Int, Never>()
        publisher.subscribe(erased)
        publisher.send(1)
        publisher.send(completion: .finished)
        #expect(inner.events == [.subscription("TestSubscription"), .value(1), .finished])
        #expect(publisher.calls == [.request(.max(2))])

        let anonymous = AnySubscriber<Int, Never>()
        #expect(anonymous.description == "Anonymous AnySubscriber")
        #expect(anonymous.receive(3) == .none)
        anonymous.receive(subscription: Subscriptions.empty)
        anonymous.receive(completion: .finished)
        #expect(anonymous.customMirror.children.isEmpty)
        #expect(anonymous.playgroundDescription as? String == "Anonymous AnySubscriber")
    }

    @Test func voidConveniences() {
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        final class VoidSubscriber: Subscriber {
            var count = 0
            func receive(subscription: any Subscription) {}
            func receive(_ input: Void) -> Subscribers.Demand {
                count += 1
                return .max(1)
            }
            func receive(completion: Subscribers.Completion<Never>) {}
        }
        let void = VoidSubscriber()
        #expect(void.receive() == .max(1))
        #expect(void.count == 1)
        _ = subscriber
    }

    @Test func anyPublisherHidesTheTypeAndDoesNotDoubleWrap() {
        let publisher = TestPublisher<Int, Never>()
        let erased = publisher.eraseToAnyPublisher()
        let twice = erased.eraseToAnyPublisher()
        #expect(erased.box === twice.box)
        #expect(erased.description == "AnyPublisher")
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        twice.subscribe(subscriber)
        publisher.send(9)
        #expect(subscriber.values == [9])
    }

    @Test func emptySubscriptionIgnoresEverything() {
        let empty = Subscriptions.empty
        empty.request(.max(1))
        empty.cancel()
        #expect(String(describing: empty) == "Empty")
    }
}
