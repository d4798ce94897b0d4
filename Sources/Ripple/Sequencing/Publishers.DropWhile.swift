extension Publishers {
    /// A publisher that omits values while a predicate holds, then republishes every later value.
    ///
    /// Once `predicate` returns `false` it is not called again. Each dropped value is replaced by asking the
    /// upstream for one more, so the downstream's demand is honoured with values it actually receives.
    public struct DropWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are dropped and republished.
        public let upstream: Upstream

        /// Decides whether to drop a value (`true`) or to start republishing (`false`).
        public let predicate: (Output) -> Bool

        /// Creates a publisher that drops values of `upstream` while `predicate` holds.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are dropped and republished.
        ///   - predicate: Decides whether to drop a value (`true`) or to start republishing (`false`).
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes `subscriber` to the upstream through a dropping subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.subscribe(
                DropWhileInner<S, Upstream.Failure, Never>(
                    downstream: subscriber,
                    name: "DropWhile",
                    predicate: predicate,
                    upstreamFailure: { $0 },
                    predicateFailure: nil
                )
            )
        }
    }

    /// A publisher that omits values while an error-throwing predicate holds, then republishes every later
    /// value.
    ///
    /// If `predicate` throws, the upstream is cancelled and the publisher fails with the thrown error.
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the predicate's.
        public typealias Failure = any Error

        /// The publisher whose values are dropped and republished.
        public let upstream: Upstream

        /// Decides whether to drop a value (`true`) or to start republishing (`false`); throwing fails.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that drops values of `upstream` while `predicate` holds.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are dropped and republished.
        ///   - predicate: Decides whether to drop a value (`true`) or to start republishing (`false`); throwing fails.
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes `subscriber` to the upstream through a dropping subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == any Error {
            upstream.subscribe(
                DropWhileInner<S, Upstream.Failure, any Error>(
                    downstream: subscriber,
                    name: "TryDropWhile",
                    predicate: predicate,
                    upstreamFailure: { $0 },
                    predicateFailure: { $0 }
                )
            )
        }
    }
}

/// The subscription of ``Publishers/DropWhile`` and ``Publishers/TryDropWhile``; `PredicateFailure` is
/// `Never` for the non-throwing form.
private final class DropWhileInner<Downstream: Subscriber, UpstreamFailure: Error, PredicateFailure: Error>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    typealias Input = Downstream.Input
    typealias Failure = UpstreamFailure

    private let downstream: Downstream
    private let predicate: (Input) throws(PredicateFailure) -> Bool
    private let upstreamFailure: (UpstreamFailure) -> Downstream.Failure
    /// Converts an error the predicate throws; `nil` when it cannot throw.
    private let predicateFailure: ((PredicateFailure) -> Downstream.Failure)?
    let description: String
    private let lock = Lock()
    private nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
    /// While subscribed: values are dropped until the predicate first returns `false`.
    private nonisolated(unsafe) var dropping = true

    init(
        downstream: Downstream,
        name: String,
        predicate: @escaping (Input) throws(PredicateFailure) -> Bool,
        upstreamFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
        predicateFailure: ((PredicateFailure) -> Downstream.Failure)?
    ) {
        self.downstream = downstream
        self.description = name
        self.predicate = predicate
        self.upstreamFailure = upstreamFailure
        self.predicateFailure = predicateFailure
    }

    var customMirror: Mirror { Mirror(self, children: [:]) }
    var playgroundDescription: Any { description }

    func receive(subscription: any Subscription) {
        let accepted = lock.withLock { state.accept(subscription) }
        if accepted {
            downstream.receive(subscription: self)
        } else {
            subscription.cancel()
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let dropping: Bool? = lock.withLock { state.isSubscribed ? self.dropping : nil }
        guard let dropping else { return .none }
        if dropping {
            do throws(PredicateFailure) {
                if try predicate(input) {
                    return .max(1)
                }
            } catch {
                if let predicateFailure, let upstream = takeUpstream() {
                    upstream.cancel()
                    downstream.receive(completion: .failure(predicateFailure(error)))
                }
                return .none
            }
            let stillLive = lock.withLock { () -> Bool in
                guard state.isSubscribed else { return false }
                self.dropping = false
                return true
            }
            guard stillLive else { return .none }
        }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        // As in Combine, a completion before the subscription is ignored: the downstream has no
        // subscription yet to end.
        let forward = lock.withLock { () -> Bool in
            guard state.isSubscribed else { return false }
            state = .terminal
            return true
        }
        if forward {
            downstream.receive(completion: completion.mapFailure(upstreamFailure))
        }
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let upstream = lock.withLock { state.subscription }
        upstream?.request(demand)
    }

    func cancel() {
        // As in Combine, a cancel before the upstream's subscription is forgotten: the downstream gets this
        // subscription only after the upstream's, so a downstream that follows the contract cannot send it.
        takeUpstream()?.cancel()
    }

    /// Makes the state terminal and returns the upstream subscription if it was live (else changes nothing).
    private func takeUpstream() -> (any Subscription)? {
        lock.withLock { state.cancelIfSubscribed() }
    }
}

extension Publisher {
    /// Omits values while `predicate` returns `true`, then republishes every value from the first one for
    /// which it returns `false`.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that completes or fails when the upstream does.
    public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
        Publishers.DropWhile(upstream: self, predicate: predicate)
    }

    /// Omits values while the error-throwing `predicate` returns `true`, then republishes every later value.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that completes when the upstream does, and fails with the upstream's error or
    ///   with the error `predicate` throws (cancelling the upstream).
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
        Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}
