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
        check("Print") { $0.print("", to: DiscardingStream()) }
    }

    private struct DiscardingStream: TextOutputStream {
        mutating func write(_ string: String) {}
    }

    /// Combine's drop(1), collect(_:), handleEvents, print and drop(untilOutputFrom:) forward a second
    /// completion of a misbehaving upstream (and several a value after it); Ripple passes on
    /// exactly one, and nothing after it.
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
        check("Print") { $0.print("", to: DiscardingStream()) }
        check("DropUntilOutput") { $0.drop(untilOutputFrom: Just(0).setFailureType(to: TestError.self)) }
    }

    /// Combine's dropFirst forgets a cancel that comes before its upstream's subscription (reachable: it hands
    /// the downstream its subscription first) and goes on with the late subscription; Ripple cancels it.
    @Test func aCancelBeforeTheSubscriptionIsKept() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.dropFirst().subscribe(subscriber)
        subscriber.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [.cancel])
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("Drop")])
    }

    /// Combine's buffer, flatMap (its inner publishers), switchToLatest and output(in:) forward what a
    /// broken upstream sends after its completion; Ripple forwards nothing after it.
    @Test func nothingFollowsACompletion() {
        let buffered = TestPublisher<Int, TestError>()
        let bufferSubscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { bufferSubscriber.cancel() }
        buffered.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(bufferSubscriber)
        buffered.send(completion: .finished)
        buffered.send(1)
        bufferSubscriber.request(.max(2))
        #expect(bufferSubscriber.events == [.subscription("Buffer"), .finished])

        let outer = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let inner = TestPublisher<Int, TestError>()
        let flatMapSubscriber = TestSubscriber<Int, TestError>()
        defer { flatMapSubscriber.cancel() }
        outer.flatMap { $0 }.subscribe(flatMapSubscriber)
        outer.send(inner)
        outer.send(completion: .finished)
        inner.send(completion: .finished)
        #expect(inner.send(7) == .none)
        #expect(flatMapSubscriber.events == [.subscription("FlatMap"), .finished])

        // An inner publisher of flatMap(maxPublishers:) that finishes again asks the upstream for nothing more.
        let limited = TestPublisher<TestPublisher<Int, TestError>, TestError>()
        let limitedInner = TestPublisher<Int, TestError>()
        let limitedSubscriber = TestSubscriber<Int, TestError>()
        defer { limitedSubscriber.cancel() }
        limited.flatMap(maxPublishers: .max(1)) { $0 }.subscribe(limitedSubscriber)
        limited.send(limitedInner)
        limitedInner.send(completion: .finished)
        limitedInner.send(completion: .finished)
        limitedInner.send(completion: .finished)
        #expect(limited.calls == [.request(.max(1)), .request(.max(1))])

        let switching = TestPublisher<Just<Int>, Never>()
        let switchSubscriber = TestSubscriber<Int, Never>()
        defer { switchSubscriber.cancel() }
        switching.switchToLatest().subscribe(switchSubscriber)
        switching.send(completion: .finished)
        switching.send(completion: .finished)
        #expect(switchSubscriber.events == [.subscription("SwitchToLatest"), .finished])

        // output(in:) (and so prefix(_:)) and catch: a value after the completion goes nowhere.
        let ranged = TestPublisher<Int, TestError>()
        let rangedSubscriber = TestSubscriber<Int, TestError>()
        defer { rangedSubscriber.cancel() }
        ranged.output(in: 0..<5).subscribe(rangedSubscriber)
        ranged.send(completion: .finished)
        #expect(ranged.send(1) == .none)
        #expect(rangedSubscriber.events == [.subscription("Output"), .finished])

        let prefixed = TestPublisher<Int, TestError>()
        let prefixSubscriber = TestSubscriber<Int, TestError>()
        defer { prefixSubscriber.cancel() }
        prefixed.prefix(2).subscribe(prefixSubscriber)
        prefixed.send(completion: .finished)
        #expect(prefixed.send(1) == .none)
        #expect(prefixSubscriber.events == [.subscription("Output"), .finished])

        let caught = TestPublisher<Int, TestError>()
        let catchSubscriber = TestSubscriber<Int, Never>()
        defer { catchSubscriber.cancel() }
        caught.catch { _ in Just(0) }.subscribe(catchSubscriber)
        caught.send(completion: .finished)
        #expect(caught.send(1) == .none)
        #expect(catchSubscriber.events == [.subscription("Catch"), .finished])
    }

    /// Combine's dropFirst and drop(untilOutputFrom:) take a new subscription after they completed and go on
    /// with it, and switchToLatest asks an inner publisher that subscribes after the stream failed for values;
    /// Ripple cancels such a subscription.
    @Test func aSubscriptionAfterTheEndIsCancelled() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.dropFirst().subscribe(subscriber)
        upstream.sendSubscription()
        upstream.send(completion: .finished)
        let later = RecordingSubscription()
        upstream.sendSubscription(later)
        #expect(later.calls == [.cancel])
        #expect(subscriber.events == [.subscription("Drop"), .finished])

        // drop(untilOutputFrom:) whose other publisher ended the stream before the upstream subscribed (a
        // correct upstream that subscribes late): Combine asks the late subscription for the demand.
        let lateUpstream = LatePublisher<Int, Never>()
        let dropSubscriber = TestSubscriber<Int, Never>(initialDemand: .max(14))
        defer { dropSubscriber.cancel() }
        lateUpstream.drop(untilOutputFrom: Empty<Int, Never>()).subscribe(dropSubscriber)
        lateUpstream.sendSubscription()
        #expect(lateUpstream.subscription.calls == [.cancel])
        #expect(dropSubscriber.events == [.subscription("DropUntilOutput"), .finished])

        // switchToLatest whose upstream failed while an inner publisher was subscribing: Combine asks that
        // inner publisher for values.
        let outer = TestPublisher<AnyPublisher<Int, TestError>, TestError>()
        var side: AnySubscriber<Int, TestError>?
        let switchSubscriber = TestSubscriber<Int, TestError>()
        defer { switchSubscriber.cancel() }
        outer.switchToLatest().subscribe(switchSubscriber)
        outer.send(AnyPublisher(LateInner { side = $0 }))
        outer.send(completion: .failure(.oops))
        let innerSubscription = RecordingSubscription()
        side?.receive(subscription: innerSubscription)
        #expect(innerSubscription.calls == [.cancel])
        #expect(switchSubscriber.events == [.subscription("SwitchToLatest"), .failure(.oops)])
    }

    /// An inner publisher that hands its subscriber to the test instead of a subscription.
    private struct LateInner: Publisher {
        typealias Output = Int
        typealias Failure = TestError
        let attach: (AnySubscriber<Int, TestError>) -> Void
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
            attach(AnySubscriber(subscriber))
        }
    }

    /// Combine's subscribe(_:) holds a subject weakly, so a subject nobody else keeps goes away even while
    /// it is subscribed (and connected); Ripple keeps it until the upstream completes or is cancelled.
    @Test func aSubjectSubscribedToAnUpstreamIsKeptWhileSubscribed() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        var cancellable: AnyCancellable?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            cancellable = upstream.subscribe(subject)
        }
        #expect(weakSubject != nil)
        upstream.send(completion: .finished)
        #expect(weakSubject == nil)
        withExtendedLifetime(cancellable) {}
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
