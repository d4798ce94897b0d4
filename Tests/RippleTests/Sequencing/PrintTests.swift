import Dispatch
import Testing

@testable import Ripple

@Suite("print (Publishers.Print)")
struct PrintTests {
    @Test func logsEveryEventInCombinesFormat() throws {
        let stream = SequencingTextStream()
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .unlimited, onValue: { $0 == 2 ? .max(2) : .none })
        defer { subscriber.cancel() }
        publisher.print("👉", to: stream).subscribe(subscriber)
        publisher.send(1)
        publisher.send(2)
        try #require(subscriber.subscription).request(.max(30))
        publisher.send(completion: .failure(.oops))
        #expect(
            stream.lines == [
                "👉: receive subscription: (TestSubscription)",
                "👉: request unlimited",
                "👉: receive value: (1)",
                "👉: receive value: (2)",
                "👉: request max: (2) (synchronous)",
                "👉: request max: (30)",
                "👉: receive error: (oops)",
            ])
        #expect(stream.writes.first == "👉: receive subscription: (TestSubscription)\n", "one write per line")
        #expect(subscriber.events == [.subscription("Print"), .value(1), .value(2), .failure(.oops)])
        #expect(publisher.calls == [.request(.unlimited), .request(.max(30))])
    }

    @Test func logsFinishingAndCancellationWithoutAPrefix() throws {
        let stream = SequencingTextStream()
        let finishing = TestPublisher<Int, Never>()
        finishing.print(to: stream).subscribe(TestSubscriber<Int, Never>(initialDemand: .max(1)))
        finishing.send(completion: .finished)
        #expect(stream.lines == ["receive subscription: (TestSubscription)", "request max: (1)", "receive finished"])

        let cancelStream = SequencingTextStream()
        let cancelled = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        cancelled.print("p", to: cancelStream).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        #expect(cancelled.send(4) == .none)
        #expect(
            cancelStream.lines == [
                "p: receive subscription: (TestSubscription)", "p: receive cancel", "p: receive cancel",
                "p: receive value: (4)",
            ])
        #expect(cancelled.calls == [.cancel])
        #expect(subscriber.events == [.subscription("Print")])
    }

    @Test func storesItsConfiguration() throws {
        let stream = SequencingTextStream()
        let print = TestPublisher<Int, Never>().print("x", to: stream)
        #expect(print.prefix == "x")
        #expect(print.stream is SequencingTextStream)
        #expect(TestPublisher<Int, Never>().print().stream == nil)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        print.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Print")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    }

    @Test func printsToStandardOutputByDefault() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let publisher = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            publisher.print("stdout").subscribe(subscriber)
            publisher.send(5)
            // Ended, so that a leak check at the child's exit finds nothing live.
            subscriber.cancel()
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(
            output.contains(
                "stdout: receive subscription: (TestSubscription)\nstdout: request unlimited\nstdout: receive value: (5)\n"
            ))
    }

    @Test func secondSubscriptionIsLoggedAndCancelled() {
        final class Relay: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = AnySubscriber(subscriber)
            }
        }
        let stream = SequencingTextStream()
        let relay = Relay()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        relay.print(to: stream).subscribe(subscriber)
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        relay.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: first))
        relay.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: second))
        #expect(second.calls == [.cancel])
        #expect(
            stream.lines == ["receive subscription: (TestSubscription)", "receive subscription: (TestSubscription)"])
    }

    @Test func concurrentValuesAreAllLogged() {
        let stream = SequencingTextStream()
        let source = SequencingSyncPublisher<Int, Never>(Array(0..<400))
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        source.print(to: stream).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<100 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values.elementsEqual(0..<400))
        #expect(stream.lines.filter { $0.hasPrefix("receive value") }.count == 400)
        #expect(stream.lines.filter { $0 == "request max: (1)" }.count == 400)
    }

    /// As in Combine, a value before the subscription is logged and passed on, with the demand the
    /// downstream answers; a cancel before it is logged and forgotten (a downstream that follows the
    /// contract cannot send it), and the late subscription is taken as usual.
    @Test func signalsBeforeTheSubscriptionAreLoggedAndTreatedAsCombineDoes() throws {
        let stream = SequencingTextStream()
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.print(to: stream).subscribe(subscriber)
        #expect(upstream.send(1) == .max(42))
        try #require(upstream.subscriberAsSubscription).cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        #expect(subscriber.events == [.value(1), .subscription("Print")])
        subscriber.request(.max(3))
        #expect(upstream.subscription.calls == [.request(.max(3))])
        #expect(
            stream.lines == [
                "receive value: (1)", "request max: (42) (synchronous)", "receive cancel",
                "receive subscription: (RecordingSubscription)", "request max: (3)",
            ])
    }
}
