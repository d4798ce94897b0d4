import Synchronization
import Testing

@testable import Ripple

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many `SIGTRAP`s the handler installed by ``withTrapCounting(_:)`` caught.
private let caughtTraps = Atomic<Int>(0)

/// Runs `body` with a `SIGTRAP` handler that counts instead of stopping the process; returns the count.
private func withTrapCounting(_ body: () -> Void) -> Int {
    caughtTraps.store(0, ordering: .relaxed)
    let previous = signal(SIGTRAP) { _ in caughtTraps.add(1, ordering: .relaxed) }
    body()
    signal(SIGTRAP, previous)
    return caughtTraps.load(ordering: .relaxed)
}

@Suite("breakpoint, breakpointOnError (Publishers.Breakpoint)", .serialized)
struct BreakpointTests {
    @Test func passesEverythingThroughAndStopsOnlyWhenAClosureSaysSo() {
        let seen = SequencingCounter()
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        let traps = withTrapCounting {
            publisher.breakpoint(
                receiveSubscription: { _ in
                    seen.increment()
                    return false
                },
                receiveOutput: {
                    seen.increment()
                    return $0 == 2
                },
                receiveCompletion: { _ in
                    seen.increment()
                    return false
                }
            )
            .subscribe(subscriber)
            #expect(publisher.send(1) == .max(1))
            #expect(publisher.send(2) == .max(1))
            publisher.send(completion: .finished)
        }
        #expect(traps == 1)
        #expect(seen.count == 4)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(2), .finished])
        #expect(publisher.calls == [.request(.max(3))])
    }

    @Test func stopsOnSubscriptionWhenAsked() {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        let traps = withTrapCounting {
            publisher.breakpoint(receiveSubscription: { _ in true }).subscribe(subscriber)
        }
        #expect(traps == 1)
        #expect(subscriber.events == [.subscription("TestSubscription")])
    }

    @Test func breakpointOnErrorStopsOnFailureOnly() {
        let finishing = TestPublisher<Int, TestError>()
        let failing = TestPublisher<Int, TestError>()
        let finished = TestSubscriber<Int, TestError>()
        defer { finished.cancel() }
        let failed = TestSubscriber<Int, TestError>()
        defer { failed.cancel() }
        let finishTraps = withTrapCounting {
            finishing.breakpointOnError().subscribe(finished)
            finishing.send(1)
            finishing.send(completion: .finished)
        }
        let failTraps = withTrapCounting {
            let breakpoint = failing.breakpointOnError()
            #expect(breakpoint.receiveSubscription == nil && breakpoint.receiveOutput == nil)
            breakpoint.subscribe(failed)
            failing.send(completion: .failure(.oops))
        }
        #expect(finishTraps == 0)
        #expect(failTraps == 1)
        #expect(finished.events == [.subscription("TestSubscription"), .value(1), .finished])
        #expect(failed.events == [.subscription("TestSubscription"), .failure(.oops)])
    }

    @Test func theSubscriberKeepsTheClosuresButNotTheUpstream() {
        final class Keeping: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = AnySubscriber(subscriber)
            }
        }
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        var upstream: Keeping? = Keeping()
        weak let weakUpstream = upstream
        upstream?.breakpoint(receiveOutput: { _ in false }).subscribe(subscriber)
        let inner = upstream?.subscriber
        upstream = nil
        #expect(weakUpstream == nil, "an upstream that keeps its subscriber is not kept alive by it")
        inner?.receive(subscription: Subscriptions.empty)
        #expect(inner?.receive(1) == Subscribers.Demand.none)
        #expect(subscriber.events == [.subscription("Empty"), .value(1)])
    }

    @Test func theSubscriberHasCombinesDescription() {
        final class Capture: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: (any Subscriber)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber
            }
        }
        let capture = Capture()
        capture.breakpoint().subscribe(TestSubscriber<Int, Never>())
        #expect(capture.subscriber.map { String(describing: $0) } == "Breakpoint")
        #expect(
            capture.subscriber.flatMap { $0 as? any CustomPlaygroundDisplayConvertible }?.playgroundDescription
                as? String == "Breakpoint")
        #expect(capture.subscriber.flatMap { $0 as? any CustomReflectable }?.customMirror.children.isEmpty == true)
    }

    @Test func withoutAHandlerTheTrapEndsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let publisher = TestPublisher<Int, TestError>()
            publisher.breakpointOnError().subscribe(TestSubscriber<Int, TestError>())
            publisher.send(completion: .failure(.oops))
        }
    }
}

@Suite("assertNoFailure (Publishers.AssertNoFailure)")
struct AssertNoFailureTests {
    @Test func passesValuesAndFinishingThrough() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        let assert = publisher.assertNoFailure("checked")
        #expect(assert.prefix == "checked")
        #expect(assert.line > 0)
        assert.subscribe(subscriber)
        #expect(publisher.send(1) == .max(1))
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .finished])
        #expect(publisher.calls == [.request(.max(2))])
    }

    @Test func theSubscriberHasCombinesDescriptionAndMirror() {
        final class Capture: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = TestError
            var subscriber: (any Subscriber)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
                self.subscriber = subscriber
            }
        }
        let capture = Capture()
        capture.assertNoFailure("p").subscribe(TestSubscriber<Int, Never>())
        #expect(capture.subscriber.map { String(describing: $0) } == "AssertNoFailure")
        #expect(
            capture.subscriber.flatMap { $0 as? any CustomPlaygroundDisplayConvertible }?.playgroundDescription
                as? String == "AssertNoFailure")
        let labels = capture.subscriber.flatMap { $0 as? any CustomReflectable }?.customMirror.children.map(\.label)
        #expect(labels == ["file", "line", "prefix"])
    }

    @Test func aFailureStopsTheProcessWithTheError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let publisher = TestPublisher<Int, TestError>()
            publisher.assertNoFailure("unexpected").subscribe(TestSubscriber<Int, Never>())
            publisher.send(completion: .failure(.oops))
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("unexpected: oops"))
    }
}
