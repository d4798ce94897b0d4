@testable import Ripple

/// Turns the `any Error` of a `try` operator into a ``TestError`` so a ``TestSubscriber`` can record it
/// (`.other` for anything that is not a `TestError`).
func transformingTestError(_ error: any Error) -> TestError {
    error as? TestError ?? .other
}

/// A publisher that records `String(describing:)` of each subscriber attached to it (the operator's inner
/// subscriber, for operators that pass the upstream subscription through) and then attaches it to `base`.
final class TransformingNamingPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    let base = TestPublisher<Output, Failure>()
    private(set) var subscriberNames: [String] = []
    private(set) var subscribers: [AnySubscriber<Output, Failure>] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriberNames.append(String(describing: subscriber))
        subscribers.append(AnySubscriber(subscriber))
        base.receive(subscriber: subscriber)
    }

    /// Lets go of the subscribers, here and in `base` (for a test whose subscribers lead back to this publisher).
    func detachSubscribers() {
        subscribers.removeAll()
        base.detachSubscribers()
    }
}

/// A subscription that records requests and cancels, for feeding an operator a second subscription.
final class TransformingRecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    private let lock = Lock()
    private var recorded: [TestPublisher<Int, Never>.Call] = []

    var calls: [TestPublisher<Int, Never>.Call] { lock.withLock { recorded } }
    var description: String { "Recording" }

    func request(_ demand: Subscribers.Demand) { lock.withLock { recorded.append(.request(demand)) } }
    func cancel() { lock.withLock { recorded.append(.cancel) } }
}
