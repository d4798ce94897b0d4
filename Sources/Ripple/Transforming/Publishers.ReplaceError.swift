extension Publishers {
    /// A publisher that replaces a failure with one last value and a normal finish.
    ///
    /// Values pass through and downstream demand is forwarded upstream unchanged. When the upstream fails,
    /// `output` is delivered followed by `.finished`; if the downstream has no outstanding demand at that
    /// moment, both wait for its next request. A normal finish passes through.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// `ReplaceError` never fails.
        public typealias Failure = Never

        /// The value delivered in place of a failure.
        public let output: Upstream.Output

        /// The publisher whose failure is replaced.
        public let upstream: Upstream

        /// Creates a publisher that replaces `upstream`'s failure with `output` and a finish.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose failure is replaced.
        ///   - output: the value delivered in place of a failure.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches `subscriber` to the upstream through a `"ReplaceError"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.subscribe(Inner(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceError {
    /// The subscriber/subscription of `ReplaceError`: it counts the downstream's outstanding demand so that
    /// the replacement value is only sent when it has been asked for.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Never {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let output: Upstream.Output
        @usableFromInline let lock = Lock()
        /// `pendingTerminal(nil)` when the upstream failed while the downstream had no demand: the replacement
        /// waits for a request.
        @usableFromInline nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
        @usableFromInline nonisolated(unsafe) var demand = Subscribers.Demand.none
        /// Set by `cancel()`, so that a cancel from inside the replacement's delivery suppresses `.finished`.
        @usableFromInline nonisolated(unsafe) var isCancelled = false

        @inlinable init(downstream: Downstream, output: Upstream.Output) {
            self.downstream = downstream
            self.output = output
        }

        @usableFromInline var description: String { "ReplaceError" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            let accepted = lock.withLock { state.accept(subscription) }
            guard accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            let live = lock.withLock { () -> Bool in
                guard state.isSubscribed else { return false }
                // As in Combine: a value nobody asked for traps.
                if demand == .none { APIViolation.unrequestedValue() }
                demand -= 1
                return true
            }
            guard live else { return .none }
            let more = downstream.receive(input)
            if more != .none {
                lock.withLock { demand += more }
            }
            return more
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            let failed: Bool
            if case .failure = completion { failed = true } else { failed = false }
            let ended = lock.withLock { () -> Bool in
                guard state.isSubscribed else { return false }
                if failed, demand == .none {
                    state = .pendingTerminal(nil)
                    return false
                }
                state = .terminal
                return true
            }
            guard ended else { return }
            if failed {
                sendReplacementAndFinish()
            } else {
                downstream.receive(completion: .finished)
            }
        }

        @inlinable func request(_ demand: Subscribers.Demand) {
            APIViolation.checkDemand(demand)
            let (upstream, replace) = lock.withLock { () -> ((any Subscription)?, Bool) in
                switch state {
                case .pendingTerminal:
                    state = .terminal
                    return (nil, true)
                case .subscribed(let upstream):
                    self.demand += demand
                    return (upstream, false)
                case .awaitingSubscription:
                    self.demand += demand
                    return (nil, false)
                case .terminal:
                    return (nil, false)
                }
            }
            upstream?.request(demand)
            if replace { sendReplacementAndFinish() }
        }

        /// Delivers `output` and `.finished`, unless the downstream cancels on receiving `output`.
        @inlinable func sendReplacementAndFinish() {
            _ = downstream.receive(output)
            if lock.withLock({ isCancelled }) { return }
            downstream.receive(completion: .finished)
        }

        /// A cancel before the upstream's subscription is forgotten, as in Combine; no downstream reaches that
        /// case, because this subscription goes downstream only after the upstream's has arrived.
        @inlinable func cancel() {
            let upstream = lock.withLock { () -> (any Subscription)? in
                if state.isAwaitingSubscription { return nil }
                isCancelled = true
                return state.cancel()
            }
            upstream?.cancel()
        }
    }
}

extension Publisher {
    /// Replaces a failure with `output`.
    ///
    /// - Parameter output: The value to publish, before finishing, in place of a failure.
    /// - Returns: a publisher that never fails: it emits the upstream's values and, if the upstream fails,
    ///   emits `output` (once the downstream has demand) and finishes.
    @inlinable
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}
