extension Publishers {
    /// A publisher that republishes values while a predicate holds, then finishes.
    ///
    /// The first value for which `predicate` returns `false` is not emitted: the upstream is cancelled and
    /// the publisher finishes. Demand passes through to the upstream unchanged.
    public struct PrefixWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are republished.
        public let upstream: Upstream

        /// Decides whether to republish a value (`true`) or to finish (`false`).
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes values of `upstream` while `predicate` holds.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are republished.
        ///   - predicate: Decides whether to republish a value (`true`) or to finish (`false`).
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes `subscriber` to the upstream through a filtering subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(
                PrefixWhileInner<S, Upstream.Failure, Never>(
                    downstream: subscriber,
                    name: "PrefixWhile",
                    predicate: predicate,
                    upstreamFailure: { $0 },
                    predicateFailure: nil
                )
            )
        }
    }

    /// A publisher that republishes values while an error-throwing predicate holds, then finishes.
    ///
    /// The first value for which `predicate` returns `false` is not emitted: the upstream is cancelled and
    /// the publisher finishes. If `predicate` throws, the upstream is cancelled and the publisher fails
    /// with the thrown error.
    public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the predicate's.
        public typealias Failure = any Error

        /// The publisher whose values are republished.
        public let upstream: Upstream

        /// Decides whether to republish a value (`true`) or to finish (`false`); throwing fails the stream.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes values of `upstream` while `predicate` holds.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are republished.
        ///   - predicate: Decides whether to republish a value (`true`) or to finish (`false`); throwing fails the
        ///     stream.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes `subscriber` to the upstream through a filtering subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == any Error {
            upstream.subscribe(
                PrefixWhileInner<S, Upstream.Failure, any Error>(
                    downstream: subscriber,
                    name: "TryPrefixWhile",
                    predicate: predicate,
                    upstreamFailure: { $0 },
                    predicateFailure: { $0 }
                )
            )
        }
    }
}

/// The subscription of ``Publishers/PrefixWhile`` and ``Publishers/TryPrefixWhile``; `PredicateFailure` is
/// `Never` for the non-throwing form. As in Combine, a value, a completion or a request before the
/// subscription traps.
private final class PrefixWhileInner<Downstream: Subscriber, UpstreamFailure: Error, PredicateFailure: Error>:
    Subscriber,
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

    var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }
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
        let active = lock.withLock { () -> Bool in
            switch state {
            case .awaitingSubscription: APIViolation.valueBeforeSubscription()
            case .subscribed: return true
            case .pendingTerminal, .terminal: return false
            }
        }
        guard active else { return .none }
        do throws(PredicateFailure) {
            if try predicate(input) {
                return downstream.receive(input)
            }
            end(with: .finished)
        } catch {
            if let predicateFailure {
                end(with: .failure(predicateFailure(error)))
            }
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let forward = lock.withLock { () -> Bool in
            switch state {
            case .awaitingSubscription: APIViolation.unexpectedCompletion()
            case .subscribed:
                state = .terminal
                return true
            case .pendingTerminal, .terminal: return false
            }
        }
        if forward {
            downstream.receive(completion: completion.mapFailure(upstreamFailure))
        }
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let upstream: (any Subscription)? = lock.withLock {
            switch state {
            case .awaitingSubscription: APIViolation.requestBeforeSubscription()
            case .subscribed(let subscription): return subscription
            case .pendingTerminal, .terminal: return nil
            }
        }
        upstream?.request(demand)
    }

    func cancel() {
        takeUpstream()?.cancel()
    }

    /// Cancels the upstream and sends `completion`, unless the stream has already ended.
    private func end(with completion: Subscribers.Completion<Downstream.Failure>) {
        guard let upstream = takeUpstream() else { return }
        upstream.cancel()
        downstream.receive(completion: completion)
    }

    /// Makes the state terminal and returns the upstream subscription if it was live.
    private func takeUpstream() -> (any Subscription)? {
        lock.withLock { state.cancel() }
    }
}

extension Publisher {
    /// Republishes values while `predicate` returns `true`, then finishes.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits values until the first one for which `predicate` is `false`
    ///   (not emitted); it then cancels the upstream and finishes. It fails if the upstream fails first.
    public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
        Publishers.PrefixWhile(upstream: self, predicate: predicate)
    }

    /// Republishes values while the error-throwing `predicate` returns `true`, then finishes.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits values until the first one for which `predicate` is `false`
    ///   (not emitted), then finishes; if `predicate` throws, it cancels the upstream and fails with the
    ///   error.
    public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
        Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
    }
}
