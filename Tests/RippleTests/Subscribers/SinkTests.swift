import Dispatch
import Testing

@testable import Ripple

@Suite("Sink: unlimited demand, cancel, closures released")
struct SinkTests {
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
        #expect(sink.customMirror.children.isEmpty)
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
}
