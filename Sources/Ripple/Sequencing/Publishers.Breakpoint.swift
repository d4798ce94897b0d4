extension Publishers {
    /// A publisher that raises `SIGTRAP` (stopping in an attached debugger) when one of its closures says
    /// so, and otherwise republishes the upstream unchanged.
    ///
    /// Each closure is called with the corresponding event before it is passed on; when it returns `true`
    /// the process raises `SIGTRAP`. Without a debugger or a `SIGTRAP` handler of the program's own that
    /// ends the process, as in Combine; on Linux it ends after the Swift runtime's backtracer has printed
    /// its backtrace. The upstream's subscription is passed through to the downstream.
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose events are examined.
        public let upstream: Upstream
        /// Examines the subscription; `true` stops in the debugger.
        public let receiveSubscription: ((any Subscription) -> Bool)?
        /// Examines each value; `true` stops in the debugger.
        public let receiveOutput: ((Upstream.Output) -> Bool)?
        /// Examines the completion; `true` stops in the debugger.
        public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

        /// Creates a publisher that stops in the debugger when one of the given closures returns `true`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose events are examined.
        ///   - receiveSubscription: Examines the subscription; `true` stops in the debugger.
        ///   - receiveOutput: Examines each value; `true` stops in the debugger.
        ///   - receiveCompletion: Examines the completion; `true` stops in the debugger.
        public init(
            upstream: Upstream,
            receiveSubscription: ((any Subscription) -> Bool)? = nil,
            receiveOutput: ((Upstream.Output) -> Bool)? = nil,
            receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
        }

        /// Subscribes `subscriber` to the upstream through an examining subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(Inner(self, downstream: subscriber))
        }
    }
}

extension Publishers.Breakpoint {
    /// The subscriber to the upstream: it examines each event, then forwards it. It keeps the closures, not the
    /// publisher, so that an upstream that keeps its subscribers is not kept alive by one of them (as in Combine).
    private struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let combineIdentifier = CombineIdentifier()
        private let receiveSubscription: ((any Subscription) -> Bool)?
        private let receiveOutput: ((Upstream.Output) -> Bool)?
        private let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?
        private let downstream: Downstream

        init(_ breakpoint: Publishers.Breakpoint<Upstream>, downstream: Downstream) {
            self.receiveSubscription = breakpoint.receiveSubscription
            self.receiveOutput = breakpoint.receiveOutput
            self.receiveCompletion = breakpoint.receiveCompletion
            self.downstream = downstream
        }

        var description: String { "Breakpoint" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            if receiveSubscription?(subscription) == true {
                BreakpointTrap.raise()
            }
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            if receiveOutput?(input) == true {
                BreakpointTrap.raise()
            }
            return downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            if receiveCompletion?(completion) == true {
                BreakpointTrap.raise()
            }
            downstream.receive(completion: completion)
        }
    }
}

extension Publisher {
    /// Raises `SIGTRAP` (stopping in an attached debugger) when one of the given closures returns `true`
    /// for an event, and republishes this publisher unchanged.
    ///
    /// - Parameters:
    ///   - receiveSubscription: examines the subscription.
    ///   - receiveOutput: examines each value.
    ///   - receiveCompletion: examines the completion.
    /// - Returns: a publisher that emits, completes and fails exactly as this one.
    public func breakpoint(
        receiveSubscription: ((any Subscription) -> Bool)? = nil,
        receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(
            upstream: self,
            receiveSubscription: receiveSubscription,
            receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion
        )
    }

    /// Raises `SIGTRAP` (stopping in an attached debugger) when this publisher fails, and republishes it
    /// unchanged.
    ///
    /// - Returns: a publisher that emits, completes and fails exactly as this one.
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        breakpoint(receiveCompletion: { completion in
            if case .failure = completion { return true }
            return false
        })
    }
}
