extension Publishers {
    /// When a ``Publishers/Buffer`` asks its upstream for values.
    public enum PrefetchStrategy: Equatable, Hashable, Sendable {
        /// Ask for as many values as the buffer holds at first, then for one more for each value passed
        /// downstream, keeping the buffer full.
        case keepFull
        /// Ask for unlimited values at once.
        case byRequest
    }

    /// What a ``Publishers/Buffer`` does with a value that arrives when it is full.
    public enum BufferingStrategy<Failure: Error> {
        /// Drop the arriving value.
        case dropNewest
        /// Drop the oldest buffered value to make room for the arriving one.
        case dropOldest
        /// Cancel the upstream and fail with the error the closure makes.
        case customError(() -> Failure)
    }

    /// A publisher that buffers values of its upstream until the downstream asks for them.
    ///
    /// On subscription it asks the upstream for `size` values (``PrefetchStrategy/keepFull``, then one
    /// more for each value it passes on) or for unlimited values (``PrefetchStrategy/byRequest``), before
    /// handing the downstream its subscription. Values wait in the buffer until demanded; a value arriving
    /// when `size` are buffered is handled by `whenFull`. As in Combine, finishing is passed on once the
    /// buffer is empty and the downstream has demand; a failure is passed on as soon as the downstream has
    /// no outstanding demand or the buffer is empty, so buffered values the downstream did not ask for yet
    /// are discarded. A `customError` failure is passed on at the next request.
    public struct Buffer<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are buffered.
        public let upstream: Upstream
        /// The most values the buffer holds.
        public let size: Int
        /// When to ask the upstream for values.
        public let prefetch: Publishers.PrefetchStrategy
        /// What to do with a value that arrives when the buffer is full.
        public let whenFull: Publishers.BufferingStrategy<Failure>

        /// Creates a publisher that buffers up to `size` values of `upstream`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are buffered.
        ///   - size: the most values the buffer holds.
        ///   - prefetch: when to ask the upstream for values.
        ///   - whenFull: what to do with a value that arrives when the buffer is full.
        public init(
            upstream: Upstream,
            size: Int,
            prefetch: Publishers.PrefetchStrategy,
            whenFull: Publishers.BufferingStrategy<Failure>
        ) {
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        /// Subscribes `subscriber` to the upstream through a buffering subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull))
        }
    }
}

extension Publishers.Buffer {
    /// The subscriber to the upstream and the subscription of the downstream.
    ///
    /// One thread at a time drains the buffer to the downstream (`draining`); a request or a value that
    /// arrives meanwhile, from another thread or re-entrantly, only updates the state and leaves the
    /// delivery to that thread, so signals stay serialised and the stack does not grow.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        /// What ``receive(_:)`` decided to do with a value, under the lock.
        private enum Arrival {
            case ignored
            /// The value goes downstream at once; this thread is now the draining one.
            case deliverNow
            /// The value was buffered or dropped by the strategy.
            case buffered
            /// The buffer is full under `.customError`.
            case overflow(() -> Failure)
        }

        /// One step of ``drain()``, decided under the lock.
        private enum DrainStep {
            case deliver(Input)
            /// Pass on the completion; the values left in the buffer are released after the lock.
            case complete(Subscribers.Completion<Failure>, discarded: BufferQueue<Input>)
            case stop
        }

        private let downstream: Downstream
        private let size: Int
        private let prefetch: Publishers.PrefetchStrategy
        private let whenFull: Publishers.BufferingStrategy<Failure>
        private let lock = Lock()
        /// `pendingTerminal(upstream)` once the upstream completed, or the buffer cancelled it on overflow:
        /// buffered values may still be delivered, and, as in Combine, the upstream is still asked to refill
        /// (`keepFull`) and cancelled on a downstream cancel (a no-op for an ended subscription); `terminal`
        /// once the downstream received a completion or cancelled.
        private nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
        private nonisolated(unsafe) var values = BufferQueue<Input>()
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        /// The completion to pass on once the buffer allows.
        private nonisolated(unsafe) var completion: Subscribers.Completion<Failure>?
        private nonisolated(unsafe) var draining = false
        /// The `customError` closure is running (a value arriving meanwhile traps, where Combine deadlocks).
        private nonisolated(unsafe) var makingError = false

        init(
            downstream: Downstream,
            size: Int,
            prefetch: Publishers.PrefetchStrategy,
            whenFull: Publishers.BufferingStrategy<Failure>
        ) {
            self.downstream = downstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        var description: String { "Buffer" }

        /// Combine's children: the buffered values, the state, the downstream's demand and the pending
        /// completion.
        var customMirror: Mirror {
            let (values, state, demand, completion) = lock.withLock {
                (self.values.elements, String(describing: self.state), self.demand, self.completion)
            }
            let children: KeyValuePairs<String, Any> = [
                "values": values, "state": state, "downstreamDemand": demand, "terminal": completion as Any,
            ]
            return Mirror(self, children: children)
        }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { state.accept(subscription) }
            guard accepted else {
                subscription.cancel()
                return
            }
            switch prefetch {
            case .keepFull:
                if size > 0 {
                    subscription.request(.max(size))
                }
            case .byRequest:
                subscription.request(.unlimited)
            }
            downstream.receive(subscription: self)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let arrival = lock.withLock { () -> Arrival in
                // Combine runs `customError` under its lock, so a value sent from inside it deadlocks there.
                if makingError { APIViolation.reentrantCall() }
                guard state.isSubscribed else { return .ignored }
                if values.isEmpty, demand > 0, !draining, size > 0 {
                    // Fast path: nothing is waiting and the value is wanted; deliver it straight away.
                    draining = true
                    demand -= 1
                    return .deliverNow
                }
                if values.count < size {
                    values.append(input)
                    return .buffered
                }
                switch whenFull {
                case .dropNewest:
                    return .buffered
                case .dropOldest:
                    if !values.isEmpty {
                        _ = values.popFirst()
                        values.append(input)
                    }
                    return .buffered
                case .customError(let makeError):
                    return .overflow(makeError)
                }
            }
            switch arrival {
            case .ignored:
                return .none
            case .deliverNow:
                return drain(startingWith: input)
            case .buffered:
                return drain()
            case .overflow(let makeError):
                lock.withLock { makingError = true }
                let error = makeError()
                lock.withLock { makingError = false }
                failBecauseFull(error)
                return .none
            }
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let accepted = lock.withLock { () -> Bool in
                guard let upstream = state.subscription else { return false }
                state = .pendingTerminal(upstream)
                self.completion = completion
                return true
            }
            if accepted {
                _ = drain()
            }
        }

        /// Adds `demand` and drains; with `keepFull`, asks the upstream held when the request came for as many
        /// values as were delivered, as Combine does (also when the drain ended with the completion).
        func request(_ demand: Subscribers.Demand) {
            let proceed = lock.withLock { () -> (proceed: Bool, upstream: (any Subscription)?) in
                switch state {
                case .subscribed, .pendingTerminal:
                    self.demand += demand
                    return (!draining, heldUpstream)
                case .awaitingSubscription, .terminal:
                    return (false, nil)
                }
            }
            guard proceed.proceed else { return }
            let refill = drain()
            if refill != .none {
                proceed.upstream?.request(refill)
            }
        }

        /// A cancel before the upstream's subscription is forgotten, as in Combine (the late subscription is
        /// then asked for values as usual); no downstream reaches that case, because this subscription goes
        /// downstream only after the upstream's has arrived.
        func cancel() {
            let (upstream, discarded) = lock.withLock { () -> ((any Subscription)?, BufferQueue<Input>) in
                if state.isAwaitingSubscription { return (nil, BufferQueue()) }
                let upstream = heldUpstream
                state = .terminal
                completion = nil
                let discarded = values
                values = BufferQueue()
                return (upstream, discarded)
            }
            // The discarded values are released here, after the lock.
            withExtendedLifetime(discarded) {
                upstream?.cancel()
            }
        }

        /// The upstream subscription while subscribed or ending (see `state`); call under `lock`.
        private var heldUpstream: (any Subscription)? {
            switch state {
            case .subscribed(let upstream), .pendingTerminal(let upstream?): upstream
            case .awaitingSubscription, .pendingTerminal(nil), .terminal: nil
            }
        }

        /// The buffer overflowed under `.customError`: records the failure (passed on at the next request,
        /// as in Combine) and cancels the upstream.
        private func failBecauseFull(_ error: Failure) {
            let upstream: (any Subscription)? = lock.withLock {
                guard let subscription = state.subscription else { return nil }
                state = .pendingTerminal(subscription)
                completion = .failure(error)
                return subscription
            }
            upstream?.cancel()
        }

        /// Delivers buffered values while the downstream has demand, then the completion when it is due.
        ///
        /// - Parameter first: a value to deliver before the buffered ones (see ``receive(_:)``).
        /// - Returns: for `.keepFull`, how many values to ask the upstream for to refill the buffer (one per
        ///   value delivered); `.none` otherwise, or when another thread is draining.
        private func drain(startingWith first: Input? = nil) -> Subscribers.Demand {
            var firstPass = true
            var delivered = 0
            var more = Subscribers.Demand.none
            if let first {
                // The caller has made this thread the draining one and counted the value against demand.
                firstPass = false
                delivered = 1
                more = downstream.receive(first)
            }
            while true {
                let step = lock.withLock { () -> DrainStep in
                    if firstPass {
                        // Become the draining thread, unless another one is.
                        guard !draining else { return .stop }
                        draining = true
                    }
                    demand += more
                    let step: DrainStep
                    switch state {
                    case .awaitingSubscription, .terminal:
                        step = .stop
                    case .subscribed, .pendingTerminal:
                        if demand > 0, let value = values.popFirst() {
                            demand -= 1
                            step = .deliver(value)
                        } else if let completion, demand > 0 || isFailure(completion) {
                            // Finishing waits for demand and an empty buffer; a failure only for the
                            // values already demanded.
                            state = .terminal
                            self.completion = nil
                            let discarded = values
                            values = BufferQueue()
                            step = .complete(completion, discarded: discarded)
                        } else {
                            step = .stop
                        }
                    }
                    if case .deliver = step {} else { draining = false }
                    return step
                }
                firstPass = false
                switch step {
                case .deliver(let value):
                    delivered += 1
                    more = downstream.receive(value)
                case .complete(let completion, _):
                    downstream.receive(completion: completion)
                    return prefetch == .keepFull ? .max(delivered) : .none
                case .stop:
                    return prefetch == .keepFull ? .max(delivered) : .none
                }
            }
        }

        private func isFailure(_ completion: Subscribers.Completion<Failure>) -> Bool {
            if case .failure = completion { return true }
            return false
        }
    }
}

/// A first-in first-out queue in a ring of slots that grows by doubling; no allocation per element once
/// it has grown to its working size.
private struct BufferQueue<Element> {
    private var slots: ContiguousArray<Element?> = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The elements, oldest first.
    var elements: [Element] {
        (0..<count).compactMap { offset in slots[(head + offset) % slots.count] }
    }

    mutating func append(_ element: Element) {
        if count == slots.count {
            grow()
        }
        var index = head + count
        if index >= slots.count {
            index -= slots.count
        }
        slots[index] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count {
            head = 0
        }
        count -= 1
        return element
    }

    private mutating func grow() {
        var grown = ContiguousArray<Element?>()
        grown.reserveCapacity(Swift.max(8, slots.count * 2))
        for offset in 0..<count {
            var index = head + offset
            if index >= slots.count {
                index -= slots.count
            }
            grown.append(slots[index])
        }
        while grown.count < grown.capacity {
            grown.append(nil)
        }
        slots = grown
        head = 0
    }
}

extension Publisher {
    /// Buffers up to `size` values until the downstream asks for them.
    ///
    /// - Parameters:
    ///   - size: the most values the buffer holds.
    ///   - prefetch: whether to keep the buffer full (`.keepFull`) or ask for unlimited values
    ///     (`.byRequest`).
    ///   - whenFull: what to do with a value that arrives when the buffer is full.
    /// - Returns: a publisher that emits the upstream's values as demanded, completes once the buffer
    ///   allows, and fails with the upstream's error or the `customError`.
    public func buffer(
        size: Int,
        prefetch: Publishers.PrefetchStrategy,
        whenFull: Publishers.BufferingStrategy<Failure>
    ) -> Publishers.Buffer<Self> {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}
