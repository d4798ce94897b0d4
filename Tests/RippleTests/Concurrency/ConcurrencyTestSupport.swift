import Dispatch
import Synchronization

@testable import Ripple

/// A TestPublisher that answers each request by sending the next of `values` from inside `request`,
/// then completes with `completion` once they are all sent.
final class ScriptedSource<Failure: Error>: Sendable {
    let publisher: TestPublisher<Int, Failure>

    /// A source answering on the requesting thread, or with `answeringOn`, on that queue's thread while
    /// `request` waits for the answer (as an upstream whose values come from another thread, a loop's, may
    /// answer before `request` has returned). The wait spins on a relaxed load, which orders nothing for
    /// ThreadSanitizer: whatever the answer does is checked as if `request` had not waited.
    init(
        _ values: [Int], then completion: Subscribers.Completion<Failure>? = .finished,
        answeringOn queue: DispatchQueue? = nil
    ) {
        let script = Script(values, then: completion)
        if let queue {
            let answers = Answers()
            publisher = TestPublisher(onRequest: { demand in
                let before = answers.count.load(ordering: .relaxed)
                queue.async {
                    script.answer(demand)
                    answers.count.add(1, ordering: .relaxed)
                }
                while answers.count.load(ordering: .relaxed) == before {}
            })
        } else {
            publisher = TestPublisher(onRequest: { demand in script.answer(demand) })
        }
        script.publisher = publisher
    }

    /// How many requests the queue has answered.
    private final class Answers: Sendable {
        let count = Atomic<Int>(0)
    }

    /// What is left to send; the publisher's request handler keeps it, and it sees the publisher weakly.
    private final class Script: @unchecked Sendable {
        private let lock = Lock()
        private var remaining: [Int]
        private var completion: Subscribers.Completion<Failure>?
        weak var publisher: TestPublisher<Int, Failure>?

        init(_ values: [Int], then completion: Subscribers.Completion<Failure>?) {
            remaining = values
            self.completion = completion
        }

        func answer(_ demand: Subscribers.Demand) {
            guard let publisher else { return }
            var demand = demand
            while demand > 0 {
                let next = lock.withLock { remaining.isEmpty ? nil : remaining.removeFirst() }
                guard let next else { break }
                demand -= 1
                demand += publisher.send(next)
            }
            let completion = lock.withLock { () -> Subscribers.Completion<Failure>? in
                guard remaining.isEmpty else { return nil }
                let completion = self.completion
                self.completion = nil
                return completion
            }
            if let completion { publisher.send(completion: completion) }
        }
    }
}

/// Signals from callbacks to an awaiting test: each `wait()` returns after one `signal()` (signals sent
/// before the wait are counted, not lost).
final class AsyncSignal: @unchecked Sendable {
    private let lock = Lock()
    private var pending = 0
    private var waiter: CheckedContinuation<Void, Never>?

    func signal() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard let waiter = self.waiter else {
                pending += 1
                return nil
            }
            self.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock { () -> Bool in
                guard pending == 0 else {
                    pending -= 1
                    return true
                }
                waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// An asynchronous sequence of the given numbers that fails with `failure` at the end (or finishes when
/// it is `nil`), and counts how often it was asked for an element.
struct CountingAsyncSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = TestError

    let values: [Int]
    let failure: TestError?
    let calls = Counter()

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .acquiring) }
        func increment() { value.add(1, ordering: .releasing) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Element = Int
        typealias Failure = TestError
        var remaining: ArraySlice<Int>
        let failure: TestError?
        let calls: Counter

        mutating func next() async throws(TestError) -> Int? {
            try await next(isolation: nil)
        }

        mutating func next(isolation actor: isolated (any Actor)?) async throws(TestError) -> Int? {
            calls.increment()
            if let value = remaining.popFirst() { return value }
            if let failure { throw failure }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: values[...], failure: failure, calls: calls)
    }
}
