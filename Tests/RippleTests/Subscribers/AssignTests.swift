import Testing

@testable import Ripple

@Suite("Assign: each value written, the object released")
struct AssignTests {
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
        #expect(assign.customMirror.children.map(\.label) == ["object", "keyPath", "status"])
        #expect(assign.customMirror.children.map { "\($0.value)" }.last == "awaitingSubscription")
        #expect(assign.receive(7) == .none)
        #expect(target.value == 5, "a value before the subscription is not written")
        #expect(assign.playgroundDescription as? String == "Assign Target.")
        let upstream = TestPublisher<Int, Never>()
        upstream.subscribe(assign)
        upstream.subscribe(assign)
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(completion: .finished)
        #expect(assign.object == nil)
    }
}
