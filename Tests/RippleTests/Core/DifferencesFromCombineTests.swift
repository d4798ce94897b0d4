import Testing

@testable import Ripple

/// Pins each deliberate difference from Combine that the "Differences from Combine" article lists: what
/// Ripple does where Combine forwards signals of a broken upstream, forgets a cancel, or keeps closures.
@Suite("Differences from Combine")
struct DifferencesFromCombineTests {
    /// Combine's handleEvents, print, drop(1), output(in:) and collect(_:) forward what a misbehaving
    /// upstream sends after a cancel; Ripple forwards nothing after it.
    @Test func nothingFollowsACancel() {
        func check<P: Publisher>(_ name: String, _ make: (TestPublisher<Int, TestError>) -> P)
        where P.Output: Equatable, P.Failure == TestError {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<P.Output, TestError>()
            make(upstream).subscribe(subscriber)
            subscriber.cancel()
            #expect(upstream.send(1) == .none, "\(name)")
            upstream.send(completion: .finished)
            upstream.send(completion: .failure(.oops))
            #expect(subscriber.events == [.subscription(name)], "\(name)")
        }
        check("HandleEvents") { $0.handleEvents() }
        check("Drop") { $0.dropFirst() }
        check("Output") { $0.output(in: 0..<5) }
        check("CollectByCount") { $0.collect(2) }
        check("Catch") { $0.catch { _ in Fail(error: TestError.other) } }
    }

    /// Combine's drop(1), collect(_:) and drop(untilOutputFrom:) forward a second completion of a
    /// misbehaving upstream; Ripple passes on exactly one.
    @Test func aCompletionComesOnce() {
        func check<P: Publisher>(_ name: String, _ make: (TestPublisher<Int, TestError>) -> P)
        where P.Output: Equatable, P.Failure == TestError {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<P.Output, TestError>()
            make(upstream).subscribe(subscriber)
            upstream.send(completion: .finished)
            upstream.send(completion: .failure(.oops))
            #expect(upstream.send(1) == .none, "\(name)")
            #expect(subscriber.events == [.subscription(name), .finished], "\(name)")
        }
        check("Drop") { $0.dropFirst() }
        check("CollectByCount") { $0.collect(2) }
        check("HandleEvents") { $0.handleEvents() }
        check("DropUntilOutput") { $0.drop(untilOutputFrom: Just(0).setFailureType(to: TestError.self)) }
    }

    /// Combine's reduce-like operators forget a cancel that comes before their subscription and then ask
    /// the late subscription for `.unlimited`; Ripple cancels it.
    @Test func aCancelBeforeTheSubscriptionIsKept() {
        func check<P: Publisher>(_ make: (LatePublisher<Int, Never>) -> P)
        where P.Output: Equatable, P.Failure == Never {
            let upstream = LatePublisher<Int, Never>()
            let subscriber = TestSubscriber<P.Output, Never>()
            make(upstream).subscribe(subscriber)
            upstream.subscriberAsSubscription?.cancel()
            upstream.sendSubscription()
            #expect(upstream.subscription.calls == [.cancel])
            #expect(subscriber.events == [])
        }
        check { $0.count() }
        check { $0.reduce(0, +) }
        check { $0.collect() }
        check { $0.first() }
        check { $0.contains(3) }
        check { $0.allSatisfy { $0 > 0 } }
        check { $0.min() }
    }

    /// Combine's pass-through operators (handleEvents, print, drop(1), output(in:)) forward a value a
    /// broken upstream sends before its subscription; Ripple ignores it.
    @Test func aValueBeforeTheSubscriptionIsIgnored() {
        func check<P: Publisher>(_ name: String, _ make: (LatePublisher<Int, Never>) -> P)
        where P.Output == Int, P.Failure == Never {
            let upstream = LatePublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(onValue: { _ in .max(42) })
            make(upstream).subscribe(subscriber)
            #expect(upstream.send(1) == .none, "\(name)")
            upstream.sendSubscription()
            #expect(subscriber.events == [.subscription(name)], "\(name)")
            subscriber.cancel()
        }
        check("HandleEvents") { $0.handleEvents() }
        check("Drop") { $0.dropFirst() }
        check("Output") { $0.output(in: 0..<5) }
    }

    /// Combine's sink keeps its closures after a cancel that comes before any subscription; Ripple
    /// releases them at the cancel.
    @Test func aSinkCancelledBeforeItsSubscriptionReleasesItsClosures() {
        final class Owner {}
        weak var weakOwner: Owner?
        var sink: Subscribers.Sink<Int, Never>?
        do {
            let owner = Owner()
            weakOwner = owner
            sink = Subscribers.Sink(receiveCompletion: { _ in _ = owner }, receiveValue: { _ in _ = owner })
        }
        #expect(weakOwner != nil)
        sink?.cancel()
        #expect(weakOwner == nil)
        withExtendedLifetime(sink) {}
    }
}
