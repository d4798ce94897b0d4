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
        #expect(String(describing: anonymous.customMirror.subjectType) == "String")
        #expect(anonymous.playgroundDescription as? String == "Anonymous AnySubscriber")
    }

    @Test func aSubscriberWithoutADescriptionIsDescribedByItsType() {
        final class Plain: Subscriber {
            func receive(subscription: any Subscription) {}
            func receive(_ input: Int) -> Subscribers.Demand { .none }
            func receive(completion: Subscribers.Completion<Never>) {}
        }
        let erased = AnySubscriber(Plain())
        #expect(erased.description == "Plain")
        #expect(erased.playgroundDescription as? String == "Plain")
        #expect(String(describing: erased.customMirror.subjectType) == "Plain")
        #expect(erased.customMirror.children.isEmpty)
    }

    @Test func anySubscriberOfASubjectSubscribesItAsSubscribeDoes() {
        let subject = PassthroughSubject<Int, Never>()
        let erased = AnySubscriber(subject)
        #expect(erased.description == "Subject")
        #expect(erased.playgroundDescription as? String == "Subject")
        #expect(
            String(describing: erased.customMirror.subjectType) == "SubjectSubscriber<PassthroughSubject<Int, Never>>")
        #expect(erased.customMirror.children.map(\.label) == ["downstreamSubject", "upstreamSubscription", "subject"])

        // The subject decides the demand: none while nobody downstream wants values, then unlimited.
        let publisher = TestPublisher<Int, Never>()
        publisher.subscribe(erased)
        #expect(publisher.calls == [])
        let downstream = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { downstream.cancel() }
        subject.subscribe(downstream)
        #expect(publisher.calls == [.request(.unlimited)])
        publisher.send(1)
        publisher.send(completion: .finished)
        #expect(downstream.events == [.subscription("PassthroughSubject"), .value(1), .finished])
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
        #expect(erased.playgroundDescription as? String == "AnyPublisher")
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
