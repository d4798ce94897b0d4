/// A publisher the test drives by hand: it records every `request` and `cancel` its subscriptions receive,
/// and ``send(_:)`` delivers a value to every subscriber whether or not it was demanded, so that a test can
/// see what an operator downstream asks for and what it does with each value.
///
/// ```swift
/// let upstream = TestPublisher<Int, Never>()
/// let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
/// upstream.map { $0 * 2 }.subscribe(subscriber)
/// #expect(upstream.calls == [.request(.max(1))])
/// upstream.send(21)
/// #expect(subscriber.values == [42])
/// ```
///
/// Safe from any thread; it calls no subscriber while it holds its lock.
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// What a subscription was asked to do.
    public enum Call: Equatable, Sendable, CustomStringConvertible {
        /// `request(_:)` with this demand.
        case request(Subscribers.Demand)
        /// `cancel()`.
        case cancel

        /// `request(max(1))` or `cancel`.
        public var description: String {
            switch self {
            case .request(let demand): "request(\(demand))"
            case .cancel: "cancel"
            }
        }
    }

    /// The subscription handed to each subscriber, described as `"TestSubscription"`: it records what it is
    /// asked into its publisher's ``TestPublisher/calls``.
    ///
    /// A test that hands subscriptions to a subscriber by hand creates its own, recording into any
    /// publisher it chooses.
    public final class TestSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        private weak var publisher: TestPublisher?

        /// A subscription that records into `publisher` (which it does not keep alive).
        ///
        /// - Parameter publisher: Where requests and cancels are recorded.
        public init(publisher: TestPublisher) { self.publisher = publisher }

        /// `"TestSubscription"`.
        public var description: String { "TestSubscription" }

        /// Records `request(demand)`.
        ///
        /// - Parameter demand: The demand asked for.
        public func request(_ demand: Subscribers.Demand) { publisher?.record(.request(demand)) }

        /// Records `cancel`.
        public func cancel() { publisher?.record(.cancel) }
    }

    private let lock = Lock()
    nonisolated(unsafe) private var recordedCalls: [Call] = []
    nonisolated(unsafe) private var downstreams: [AnySubscriber<Output, Failure>] = []
    nonisolated(unsafe) private var attached = 0
    private let onRequest: (@Sendable (Subscribers.Demand) -> Void)?

    /// Creates a publisher with no subscribers.
    ///
    /// - Parameter onRequest: Called after each request is recorded (for example to send values on demand);
    ///   by default nothing happens beyond the recording.
    public init(onRequest: (@Sendable (Subscribers.Demand) -> Void)? = nil) {
        self.onRequest = onRequest
    }

    /// Every `request` and `cancel` received so far, in order, across all subscriptions.
    public var calls: [Call] { lock.withLock { recordedCalls } }

    /// How many subscribers have attached.
    public var subscriptions: Int { lock.withLock { attached } }

    /// The sum of all requests so far.
    public var requested: Subscribers.Demand {
        lock.withLock {
            recordedCalls.reduce(into: .none) { if case .request(let demand) = $1 { $0 += demand } }
        }
    }

    /// Whether any subscription was cancelled.
    public var isCancelled: Bool { lock.withLock { recordedCalls.contains(.cancel) } }

    /// Attaches `subscriber` and hands it a subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            downstreams.append(AnySubscriber(subscriber))
            attached += 1
        }
        subscriber.receive(subscription: TestSubscription(publisher: self))
    }

    /// Delivers `value` to every subscriber, demanded or not.
    ///
    /// - Parameter value: The value to deliver.
    /// - Returns: The extra demand the last subscriber answered with.
    @discardableResult
    public func send(_ value: Output) -> Subscribers.Demand {
        let targets = lock.withLock { downstreams }
        var demand = Subscribers.Demand.none
        for target in targets { demand = target.receive(value) }
        return demand
    }

    /// Delivers `completion` to every subscriber.
    ///
    /// - Parameter completion: How the publisher ends.
    public func send(completion: Subscribers.Completion<Failure>) {
        let targets = lock.withLock { downstreams }
        for target in targets { target.receive(completion: completion) }
    }

    /// Lets go of every subscriber attached so far: later sends reach none of them, and the publisher no longer
    /// keeps them alive.
    ///
    /// A test publisher keeps its subscribers for its whole life (so that a test can send after a completion
    /// or a cancel, as a misbehaving publisher might). A test whose subscribers lead back to the publisher, for
    /// example through a closure or a connectable that owns it, ends with this to break that cycle.
    public func detachSubscribers() {
        let detached = lock.withLock { () -> [AnySubscriber<Output, Failure>] in
            defer { downstreams.removeAll() }
            return downstreams
        }
        withExtendedLifetime(detached) {}
    }

    /// Records `call`, then runs `onRequest` for a request.
    private func record(_ call: Call) {
        lock.withLock { recordedCalls.append(call) }
        if case .request(let demand) = call { onRequest?(demand) }
    }
}
