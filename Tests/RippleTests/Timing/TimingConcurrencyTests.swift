import Dispatch
import RippleTestSupport
import Testing

@testable import Ripple

/// Every time operator, on a concurrent queue, with values sent from several threads while demand
/// arrives from another and the subscription is cancelled midway: deliveries never overlap, at most one
/// completion arrives, and (under `--sanitize=thread`) nothing races.
@Suite("time operators under concurrency")
struct TimingConcurrencyTests {
    /// Subscribes the probe to the operator applied to the upstream (outputs other than `Int` are
    /// delivered as `1`s).
    typealias Operator = @Sendable (TestPublisher<Int, Never>, DispatchQueue, AnySubscriber<Int, Never>) -> Void

    static let operators: [(String, Operator)] = [
        ("receive(on:)", { attach($0.receive(on: $1), $2) }),
        ("delay", { attach($0.delay(for: .microseconds(100), scheduler: $1), $2) }),
        ("timeout", { attach($0.timeout(.seconds(5), scheduler: $1), $2) }),
        ("debounce", { attach($0.debounce(for: .microseconds(50), scheduler: $1), $2) }),
        ("throttle", { attach($0.throttle(for: .microseconds(50), scheduler: $1, latest: true), $2) }),
        ("collect", { attach($0.collect(.byTimeOrCount($1, .microseconds(100), 3)), $2) }),
        ("subscribe(on:)", { attach($0.subscribe(on: $1), $2) }),
        ("measureInterval", { attach($0.measureInterval(using: $1), $2) }),
    ]

    static func attach<P: Publisher>(_ publisher: P, _ probe: AnySubscriber<Int, Never>) where P.Failure == Never {
        publisher.subscribe(
            AnySubscriber<P.Output, Never>(
                receiveSubscription: probe.receive(subscription:),
                receiveValue: { value in probe.receive((value as? Int) ?? 1) },
                receiveCompletion: probe.receive(completion:)
            ))
    }

    @Test(arguments: 0..<operators.count)
    func sendRequestAndCancelFromManyThreads(_ index: Int) {
        let (name, makeOperator) = Self.operators[index]
        let queue = DispatchQueue(label: "timing-concurrency-\(name)", attributes: .concurrent)
        let upstream = TestPublisher<Int, Never>()
        let detector = OverlapDetector()
        let completions = TimingTestList<Int>()
        let subscribed = TimingTestFlag()
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(10),
            onValue: { _ in
                detector.enter()
                detector.leave()
                return .max(1)
            },
            onCompletion: { _ in completions.append(1) }
        )
        defer { subscriber.cancel() }
        let probe = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscriber.receive(subscription: subscription)
                subscribed.raise()
            },
            receiveValue: { subscriber.receive($0) },
            receiveCompletion: { subscriber.receive(completion: $0) }
        )
        makeOperator(upstream, queue, probe)
        #expect(subscribed.wait(), "\(name)")
        // A publisher's own sends are serialised (the contract every upstream keeps); the senders take
        // turns, while requests and the cancel still race them.
        let sendTurns = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            for step in 0..<200 {
                switch worker {
                case 4:
                    subscriber.request(.max(2))
                    if step == 150 { subscriber.cancel() }
                default:
                    sendTurns.withLock { turns in
                        turns += 1
                        upstream.send(worker * 1_000 + step)
                    }
                }
            }
        }
        upstream.send(completion: .finished)
        subscriber.cancel()
        // Drain what the queue still holds before checking.
        queue.sync(flags: .barrier) {}
        #expect(detector.overlaps == 0, "\(name)")
        #expect(completions.count <= 1, "\(name)")
        #expect(subscriber.orderViolations == 0, "\(name)")
    }
}
