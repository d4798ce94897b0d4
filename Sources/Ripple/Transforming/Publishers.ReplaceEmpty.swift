import Synchronization

extension Publishers {
    /// A publisher that delivers a value when its upstream finishes without having published any.
    ///
    /// Values pass through and downstream demand is forwarded upstream unchanged. If the upstream finishes
    /// before any value, `output` is delivered followed by `.finished` (after the downstream's first request
    /// if it has not requested yet). A failure passes through.
    ///
    /// Unlike Combine, which also requests `.unlimited` from its upstream and so can deliver more values
    /// than the downstream asked for, Ripple only forwards the downstream's demand.
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The value delivered when the upstream finishes empty.
        public let output: Upstream.Output

        /// The publisher that may finish empty.
        public let upstream: Upstream

        /// Creates a publisher that delivers `output` if `upstream` finishes without a value.
        ///
        /// - Parameters:
        ///   - upstream: the publisher that may finish empty.
        ///   - output: the value delivered when the upstream finishes empty.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches `subscriber` to the upstream through a `"ReplaceEmpty"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceEmpty {
    /// The subscriber/subscription of `ReplaceEmpty`.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let output: Upstream.Output
        /// Touched only from the upstream's serialised signals (the contract serialises them), so the dynamic
        /// exclusivity check is skipped.
        @exclusivity(unchecked) @usableFromInline var receivedValue = false
        @usableFromInline let lock = Lock()
        /// `pendingTerminal(nil)` when the upstream finished empty before the downstream requested: the
        /// replacement waits.
        @usableFromInline nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
        @usableFromInline nonisolated(unsafe) var hasDemand = false
        /// Set by `cancel()`, so that a cancel from inside the replacement's delivery suppresses `.finished`.
        @usableFromInline nonisolated(unsafe) var isCancelled = false
        /// Whether `state` is `.subscribed`; written only under `lock`.
        @usableFromInline let isActive = Atomic<Bool>(false)

        @inlinable init(downstream: Downstream, output: Upstream.Output) {
            self.downstream = downstream
            self.output = output
        }

        @usableFromInline var description: String { "ReplaceEmpty" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard state.accept(subscription) else { return false }
                isActive.store(true, ordering: .releasing)
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            guard isActive.load(ordering: .acquiring) else { return .none }
            receivedValue = true
            return downstream.receive(input)
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            let replaceEmpty: Bool
            if case .finished = completion { replaceEmpty = !receivedValue } else { replaceEmpty = false }
            let deliver = lock.withLock { () -> Bool in
                guard state.isSubscribed else { return false }
                isActive.store(false, ordering: .releasing)
                if replaceEmpty, !hasDemand {
                    state = .pendingTerminal(nil)
                    return false
                }
                state = .terminal
                return true
            }
            guard deliver else { return }
            if replaceEmpty {
                sendReplacementAndFinish()
            } else {
                downstream.receive(completion: completion)
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
                    hasDemand = true
                    return (upstream, false)
                case .awaitingSubscription:
                    hasDemand = true
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
                isActive.store(false, ordering: .releasing)
                return state.cancel()
            }
            upstream?.cancel()
        }
    }
}

extension Publisher {
    /// Replaces an empty stream with `output`.
    ///
    /// - Parameter output: The value to publish when the upstream finishes without one.
    /// - Returns: a publisher that emits the upstream's values; if the upstream finishes without any, it
    ///   emits `output` and finishes. Failures pass through.
    @inlinable
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }
}
