import Dispatch
import Testing

@testable import Ripple

@Suite("Sink, Assign, AnySubscriber, AnyPublisher")
struct SubscriberTests {
    @Test func sinkRequestsUnlimitedAndForwards() {
        let publisher = TestPublisher<Int, TestError>()
        var values: [Int] = []
        var completions: [Subscribers.Completion<TestError>] = []
        let cancellable = publisher.sink(
            receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        #expect(publisher.calls == [.request(.unlimited)])
        #expect(publisher.send(1) == .none)
        publisher.send(2)
        publisher.send(completion: .failure(.oops))
        publisher.send(3)
        publisher.send(completion: .finished)
        #expect(values == [1, 2])
        #expect(completions == [.failure(.oops)])
        cancellable.cancel()
        #expect(publisher.calls == [.request(.unlimited)])
    }

    @Test func sinkCancelStopsDeliveryAndCancelsUpstreamOnce() {
        let publisher = TestPublisher<Int, Never>()
        var values: [Int] = []
        let cancellable = publisher.sink { values.append($0) }
        publisher.send(1)
        cancellable.cancel()
        cancellable.cancel()
        publisher.send(2)
        #expect(values == [1])
        #expect(publisher.calls == [.request(.unlimited), .cancel])
    }

    @Test func sinkRejectsASecondSubscription() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        first.subscribe(sink)
        second.subscribe(sink)
        #expect(first.calls == [.request(.unlimited)])
        #expect(second.calls == [.cancel])
        #expect(sink.description == "Sink")
        #expect(sink.customMirror.children.count == 2)
        #expect(sink.playgroundDescription as? String == "Sink")
        sink.receiveValue(1)
        sink.receiveCompletion(.finished)
    }

    @Test func sinkReleasesClosuresOnCompletion() {
        final class Owner {}
        weak var weakOwner: Owner?
        let publisher = TestPublisher<Int, Never>()
        var cancellable: AnyCancellable?
        do {
            let owner = Owner()
            weakOwner = owner
            cancellable = publisher.sink { _ in _ = owner }
        }
        #expect(weakOwner != nil)
        publisher.send(completion: .finished)
        #expect(weakOwner == nil)
        _ = cancellable
    }

    @Test func sinkCancelledFromInsideItsValueClosureReleasesTheClosuresAfterThatValue() {
        final class Owner {}
        weak var weakOwner: Owner?
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        var cancellable: AnyCancellable?
        var ownerAliveDuringCancel = false
        do {
            let owner = Owner()
            weakOwner = owner
            cancellable = subject.sink { value in
                _ = owner
                values.append(value)
                cancellable?.cancel()
                ownerAliveDuringCancel = weakOwner != nil
            }
        }
        subject.send(1)
        subject.send(2)
        #expect(values == [1])
        #expect(ownerAliveDuringCancel, "the running closure is not released under its own feet")
        #expect(weakOwner == nil, "released once the delivery that cancelled returned")
    }

    @Test func sinkCancelRacingDeliveryReleasesTheClosuresExactlyOnce() {
        final class Owner: Sendable {}
        for _ in 0..<200 {
            weak var weakOwner: Owner?
            let subject = PassthroughSubject<Int, Never>()
            // Shared by the two racing threads on purpose: the sink's own synchronisation is under test.
            nonisolated(unsafe) let sink: Subscribers.Sink<Int, Never>
            do {
                let owner = Owner()
                weakOwner = owner
                sink = Subscribers.Sink(receiveCompletion: { _ in _ = owner }, receiveValue: { _ in _ = owner })
            }
            subject.subscribe(sink)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<200 { subject.send(value) }
                } else {
                    sink.cancel()
                }
            }
            subject.send(completion: .finished)
            #expect(weakOwner == nil)
            #expect(sink.receive(1) == .none, "a value after the end is ignored")
        }
    }

    @Test func assignWritesEachValueAndReleasesTheObject() {
        final class Target { var value = 0 }
        let target = Target()
        let publisher = TestPublisher<Int, Never>()
        let cancellable = publisher.assign(to: \.value, on: target)
        #expect(publisher.calls == [.request(.unlimited)])
        publisher.send(4)
        #expect(target.value == 4)
        publisher.send(5)
        #expect(target.value == 5)
        cancellable.cancel()
        publisher.send(6)
        #expect(target.value == 5)
        #expect(publisher.calls == [.request(.unlimited), .cancel])

        let assign = Subscribers.Assign(object: target, keyPath: \Target.value)
        #expect(assign.description == "Assign Target.")
        #expect(assign.object === target)
        #expect(assign.customMirror.children.count == 3)
        #expect(assign.playgroundDescription as? String == "Assign Target.")
        let upstream = TestPublisher<Int, Never>()
        upstream.subscribe(assign)
        upstream.subscribe(assign)
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(completion: .finished)
        #expect(assign.object == nil)
    }

    @Test func anySubscriberForwardsAndDescribes() {
        let inner = TestSubscriber<Int, Never>(initialDemand: .max(2))
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
