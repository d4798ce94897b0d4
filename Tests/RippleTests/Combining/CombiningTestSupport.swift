import Foundation

@testable import Ripple

/// A publisher for concurrency tests: each subscription sends `values` from a thread of its own, each
/// one only once demand allows it (the thread waits, without sleeping, for requests), then completes
/// with `completion`. Cancelling stops the thread.
final class CombiningPacedPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    let values: [Output]
    private let completion: Subscribers.Completion<Failure>

    init(_ values: [Output], completion: Subscribers.Completion<Failure> = .finished) {
        self.values = values
        self.completion = completion
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let run = Run(values: values, completion: completion, subscriber: AnySubscriber(subscriber))
        subscriber.receive(subscription: run)
        Thread.detachNewThread { run.send() }
    }

    private final class Run: Subscription, CustomStringConvertible, @unchecked Sendable {
        private let values: [Output]
        private let completion: Subscribers.Completion<Failure>
        private let subscriber: AnySubscriber<Output, Failure>
        private let lock = Lock()
        private let wake = DispatchSemaphore(value: 0)
        private var available = Subscribers.Demand.none
        private var cancelled = false

        init(values: [Output], completion: Subscribers.Completion<Failure>, subscriber: AnySubscriber<Output, Failure>)
        {
            self.values = values
            self.completion = completion
            self.subscriber = subscriber
        }

        var description: String { "Paced" }

        func request(_ demand: Subscribers.Demand) {
            lock.withLock { available += demand }
            wake.signal()
        }

        func cancel() {
            lock.withLock { cancelled = true }
            wake.signal()
        }

        func send() {
            for value in values {
                guard awaitDemand() else { return }
                let more = subscriber.receive(value)
                if more > 0 { lock.withLock { available += more } }
            }
            guard !lock.withLock({ cancelled }) else { return }
            subscriber.receive(completion: completion)
        }

        /// Takes one unit of demand, waiting for a request if there is none; `false` once cancelled.
        private func awaitDemand() -> Bool {
            while true {
                let answer: Bool? = lock.withLock {
                    if cancelled { return false }
                    guard available > 0 else { return nil }
                    available -= 1
                    return true
                }
                if let answer { return answer }
                wake.wait()
            }
        }
    }
}

/// A synchronous publisher of a sequence, as Combine's `Publishers.Sequence`: it sends values from the
/// requesting thread as demand allows and finishes after the last one. A request made while it is
/// sending only adds demand (the sending loop goes on), so it never recurses. It records the requests.
final class CombiningSyncSequence<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let values: [Output]
    private let lock = Lock()
    private var recordedRequests: [Subscribers.Demand] = []

    init(_ values: [Output]) {
        self.values = values
    }

    /// Every request its subscriptions received, in order.
    var requests: [Subscribers.Demand] { lock.withLock { recordedRequests } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Run(owner: self, subscriber: AnySubscriber(subscriber)))
    }

    fileprivate func record(_ demand: Subscribers.Demand) {
        lock.withLock { recordedRequests.append(demand) }
    }

    private final class Run: Subscription, CustomStringConvertible, @unchecked Sendable {
        private let owner: CombiningSyncSequence
        private let subscriber: AnySubscriber<Output, Failure>
        private let lock = Lock()
        private var next = 0
        private var demand = Subscribers.Demand.none
        private var sending = false
        private var done = false

        init(owner: CombiningSyncSequence, subscriber: AnySubscriber<Output, Failure>) {
            self.owner = owner
            self.subscriber = subscriber
        }

        var description: String { "Sequence" }

        func request(_ more: Subscribers.Demand) {
            owner.record(more)
            let start: Bool = lock.withLock {
                demand += more
                guard !sending, !done else { return false }
                sending = true
                return true
            }
            guard start else { return }
            while true {
                let step: (value: Output?, finish: Bool) = lock.withLock {
                    if done {
                        sending = false
                        return (nil, false)
                    }
                    if next == owner.values.count {
                        done = true
                        sending = false
                        return (nil, true)
                    }
                    guard demand > 0 else {
                        sending = false
                        return (nil, false)
                    }
                    demand -= 1
                    next += 1
                    return (owner.values[next - 1], false)
                }
                if step.finish {
                    subscriber.receive(completion: .finished)
                    return
                }
                guard let value = step.value else { return }
                let extra = subscriber.receive(value)
                if extra > 0 { lock.withLock { demand += extra } }
            }
        }

        func cancel() {
            lock.withLock { done = true }
        }
    }
}

/// A publisher that hands each subscriber to `onSubscribe` (to drive it by hand) and then, if
/// `sendsSubscription`, a subscription that ignores everything.
final class CombiningRecordingPublisher<Output, Failure: Error>: Publisher {
    private let sendsSubscription: Bool
    private let onSubscribe: (AnySubscriber<Output, Failure>) -> Void

    init(sendsSubscription: Bool = true, _ onSubscribe: @escaping (AnySubscriber<Output, Failure>) -> Void) {
        self.sendsSubscription = sendsSubscription
        self.onSubscribe = onSubscribe
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        onSubscribe(AnySubscriber(subscriber))
        if sendsSubscription {
            subscriber.receive(subscription: Subscriptions.empty)
        }
    }
}

/// An equatable publisher that finishes at once.
struct CombiningEquatablePublisher: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = TestError
    let id: Int

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}

/// Waits (up to a minute) for `semaphore`, returning whether it was signalled.
func combiningAwait(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + 60) == .success
}

/// Whether `values` contains, for each source `s` in `0..<sources`, the values `s * stride + 0`,
/// `s * stride + 1`, … in increasing order (the other sources' values interleaved anywhere).
func combiningPerSourceOrderHolds(_ values: [Int], stride: Int) -> Bool {
    var last: [Int: Int] = [:]
    for value in values {
        let source = value / stride
        if let previous = last[source], previous >= value { return false }
        last[source] = value
    }
    return true
}
