extension Publishers {
    /// A publisher that replaces a failed upstream with another publisher.
    ///
    /// Values of the upstream are republished; if it fails, `handler` makes a new publisher from the error
    /// and the stream continues with that publisher's values and completion. The new publisher receives
    /// the demand the downstream has left. If the upstream finishes, the publisher finishes.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The values of both publishers.
        public typealias Output = Upstream.Output
        /// The new publisher's failure.
        public typealias Failure = NewPublisher.Failure

        /// The publisher that may fail.
        public let upstream: Upstream
        /// Makes the publisher that replaces the upstream when it fails.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that replaces `upstream` with `handler(error)` when it fails.
        ///
        /// - Parameters:
        ///   - upstream: the publisher that may fail.
        ///   - handler: Makes the publisher that replaces the upstream when it fails.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Subscribes `subscriber` to the upstream, and later to the replacement, through one subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CatchInner<S, Upstream, NewPublisher, Never>(
                downstream: subscriber,
                name: "Catch",
                handler: handler,
                newFailure: { $0 },
                handlerFailure: nil
            )
            upstream.subscribe(CatchInner.UpstreamSubscriber(inner: inner))
        }
    }

    /// A publisher that replaces a failed upstream with another publisher, made by an error-throwing
    /// closure.
    ///
    /// As ``Publishers/Catch``, except that if `handler` throws, the publisher fails with the thrown
    /// error.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The values of both publishers.
        public typealias Output = Upstream.Output
        /// Any error: the new publisher's or the handler's.
        public typealias Failure = any Error

        /// The publisher that may fail.
        public let upstream: Upstream
        /// Makes the publisher that replaces the upstream when it fails; throwing fails the stream.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that replaces `upstream` with `handler(error)` when it fails.
        ///
        /// - Parameters:
        ///   - upstream: the publisher that may fail.
        ///   - handler: Makes the publisher that replaces the upstream when it fails; throwing fails the stream.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Subscribes `subscriber` to the upstream, and later to the replacement, through one subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CatchInner<S, Upstream, NewPublisher, any Error>(
                downstream: subscriber,
                name: "TryCatch",
                handler: handler,
                newFailure: { $0 },
                handlerFailure: { $0 }
            )
            upstream.subscribe(CatchInner.UpstreamSubscriber(inner: inner))
        }
    }
}

/// The subscription of ``Publishers/Catch`` and ``Publishers/TryCatch`` (`HandlerFailure` is `Never` for
/// `Catch`): it is subscribed to the upstream, then, after a failure, to the replacement publisher.
///
/// As in Combine, it traps when the upstream sends a value or a failure before its subscription, a value
/// nobody asked for, or a second failure (also from inside the handler), and when the downstream requests
/// before it has its subscription.
private final class CatchInner<
    Downstream: Subscriber, Upstream: Publisher, NewPublisher: Publisher, HandlerFailure: Error
>:
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Upstream.Output, NewPublisher.Output == Upstream.Output {
    private let downstream: Downstream
    private let handler: (Upstream.Failure) throws(HandlerFailure) -> NewPublisher
    private let newFailure: (NewPublisher.Failure) -> Downstream.Failure
    /// Converts an error the handler throws; `nil` when it cannot throw.
    private let handlerFailure: ((HandlerFailure) -> Downstream.Failure)?
    let description: String
    private let lock = Lock()
    /// The link to the upstream, then (after it failed) to the replacement: while `upstream` is terminal and
    /// `replacement` awaits its subscription, the replacement is being subscribed to. Both are terminal once
    /// the stream has ended.
    private nonisolated(unsafe) var upstream = SubscriptionLifecycle.awaitingSubscription
    private nonisolated(unsafe) var replacement = SubscriptionLifecycle.awaitingSubscription
    /// What the downstream asked for and has not received from the upstream yet.
    private nonisolated(unsafe) var demand = Subscribers.Demand.none

    init(
        downstream: Downstream,
        name: String,
        handler: @escaping (Upstream.Failure) throws(HandlerFailure) -> NewPublisher,
        newFailure: @escaping (NewPublisher.Failure) -> Downstream.Failure,
        handlerFailure: ((HandlerFailure) -> Downstream.Failure)?
    ) {
        self.downstream = downstream
        self.description = name
        self.handler = handler
        self.newFailure = newFailure
        self.handlerFailure = handlerFailure
    }

    var customMirror: Mirror {
        let demand = lock.withLock { self.demand }
        return Mirror(self, children: ["downstream": downstream, "demand": demand])
    }

    var playgroundDescription: Any { description }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let target: (any Subscription)? = lock.withLock {
            switch (upstream, replacement) {
            case (.awaitingSubscription, _):
                APIViolation.requestBeforeSubscription()
            case (.subscribed(let subscription), _):
                self.demand += demand
                return subscription
            case (_, .awaitingSubscription):
                self.demand += demand
                return nil
            case (_, .subscribed(let subscription)):
                return subscription
            default:
                return nil
            }
        }
        target?.request(demand)
    }

    func cancel() {
        let target = lock.withLock { () -> (any Subscription)? in
            let upstreamSubscription = upstream.cancel()
            let replacementSubscription = replacement.cancel()
            return upstreamSubscription ?? replacementSubscription
        }
        target?.cancel()
    }

    // MARK: Upstream

    fileprivate func upstreamReceive(subscription: any Subscription) {
        let accepted = lock.withLock { upstream.accept(subscription) }
        if accepted {
            downstream.receive(subscription: self)
        } else {
            subscription.cancel()
        }
    }

    fileprivate func upstreamReceive(_ input: Upstream.Output) -> Subscribers.Demand {
        let live = lock.withLock { () -> Bool in
            switch upstream {
            case .awaitingSubscription:
                APIViolation.valueBeforeSubscription()
            case .subscribed:
                if demand == .none { APIViolation.unrequestedValue() }
                demand -= 1
                return true
            case .pendingTerminal, .terminal:
                return false
            }
        }
        guard live else { return .none }
        let more = downstream.receive(input)
        if more != .none {
            lock.withLock { demand += more }
        }
        return more
    }

    fileprivate func upstreamReceive(completion: Subscribers.Completion<Upstream.Failure>) {
        let live = lock.withLock { () -> Bool in
            switch (upstream, replacement, completion) {
            case (.subscribed, _, _):
                break
            case (.awaitingSubscription, _, .failure), (_, .awaitingSubscription, .failure),
                (_, .subscribed, .failure):
                // A failure before the subscription, a second one, or one from inside the handler.
                APIViolation.unexpectedCompletion()
            default:
                return false
            }
            upstream = .terminal
            if case .finished = completion { replacement = .terminal }
            return true
        }
        guard live else { return }
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            do throws(HandlerFailure) {
                try handler(error).subscribe(ReplacementSubscriber(inner: self))
            } catch {
                let fail = lock.withLock { () -> Bool in
                    guard replacement.isAwaitingSubscription else { return false }
                    replacement = .terminal
                    return true
                }
                if fail, let handlerFailure {
                    downstream.receive(completion: .failure(handlerFailure(error)))
                }
            }
        }
    }

    // MARK: Replacement

    fileprivate func replacementReceive(subscription: any Subscription) {
        let pending: Subscribers.Demand? = lock.withLock {
            guard upstream.isTerminal, replacement.accept(subscription) else { return nil }
            return demand
        }
        guard let pending else {
            subscription.cancel()
            return
        }
        if pending != .none {
            subscription.request(pending)
        }
    }

    fileprivate func replacementReceive(_ input: NewPublisher.Output) -> Subscribers.Demand {
        let live = lock.withLock { replacement.isSubscribed }
        return live ? downstream.receive(input) : .none
    }

    fileprivate func replacementReceive(completion: Subscribers.Completion<NewPublisher.Failure>) {
        let forward = lock.withLock { () -> Bool in
            guard replacement.isSubscribed else { return false }
            replacement = .terminal
            return true
        }
        if forward {
            downstream.receive(completion: completion.mapFailure(newFailure))
        }
    }

    /// The subscriber to the upstream; it shares the identifier and description of the subscription.
    fileprivate struct UpstreamSubscriber: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let inner: CatchInner

        var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
        var description: String { inner.description }
        var customMirror: Mirror { inner.customMirror }
        var playgroundDescription: Any { inner.playgroundDescription }

        func receive(subscription: any Subscription) { inner.upstreamReceive(subscription: subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { inner.upstreamReceive(input) }
        func receive(completion: Subscribers.Completion<Failure>) { inner.upstreamReceive(completion: completion) }
    }

    /// The subscriber to the replacement; it shares the identifier and description of the subscription.
    fileprivate struct ReplacementSubscriber: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        typealias Input = NewPublisher.Output
        typealias Failure = NewPublisher.Failure

        let inner: CatchInner

        var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
        var description: String { inner.description }
        var customMirror: Mirror { inner.customMirror }
        var playgroundDescription: Any { inner.playgroundDescription }

        func receive(subscription: any Subscription) { inner.replacementReceive(subscription: subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { inner.replacementReceive(input) }
        func receive(completion: Subscribers.Completion<Failure>) { inner.replacementReceive(completion: completion) }
    }
}

extension Publisher {
    /// Replaces this publisher, if it fails, with the publisher `handler` makes from the error.
    ///
    /// - Parameter handler: Makes the publisher that replaces this one after its failure.
    /// - Returns: a publisher that emits this publisher's values, and after a failure the values of
    ///   `handler(error)`; it finishes when this publisher finishes, or completes as the replacement does.
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
    where P.Output == Output {
        Publishers.Catch(upstream: self, handler: handler)
    }

    /// Replaces this publisher, if it fails, with the publisher the error-throwing `handler` makes from
    /// the error.
    ///
    /// - Parameter handler: Makes the publisher that replaces this one after its failure; it may throw.
    /// - Returns: a publisher that emits this publisher's values, and after a failure the values of
    ///   `handler(error)`; it fails with the error `handler` throws, or completes as the replacement does.
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
    where P.Output == Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}
