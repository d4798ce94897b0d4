extension Publishers {
    /// A publisher that logs every event of its stream and otherwise republishes the upstream unchanged.
    ///
    /// Each event becomes one line, as in Combine: `receive subscription: (…)`, `request unlimited`,
    /// `request max: (n)`, `receive value: (…)`, `request max: (n) (synchronous)` (demand returned for a
    /// value, when not `.none`), `receive finished`, `receive error: (…)` and `receive cancel`, each
    /// preceded by `prefix: ` when a prefix is given. Lines go to `stream`, or to standard output.
    public struct Print<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The text put before every line (followed by `": "`), or `""` for none.
        public let prefix: String
        /// The publisher whose events are logged.
        public let upstream: Upstream
        /// Where the lines go; `nil` for standard output.
        public let stream: (any TextOutputStream)?

        /// Creates a publisher that logs the events of `upstream` to `stream` (standard output if `nil`).
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose events are logged.
        ///   - prefix: the text put before every line (followed by `": "`), or `""` for none.
        ///   - stream: where the lines go; `nil` for standard output.
        public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        /// Subscribes `subscriber` to the upstream through a logging subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, stream: stream))
        }
    }
}

extension Publishers.Print {
    /// The subscriber to the upstream and the subscription of the downstream.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private let downstream: Downstream
        /// `""`, or the prefix followed by `": "`.
        private let linePrefix: String
        private let stream: (any TextOutputStream)?
        private let lock = Lock()
        private nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription

        init(downstream: Downstream, prefix: String, stream: (any TextOutputStream)?) {
            self.downstream = downstream
            self.linePrefix = prefix.isEmpty ? "" : "\(prefix): "
            self.stream = stream
        }

        var description: String { "Print" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            log("receive subscription: (\(subscription))")
            let accepted = lock.withLock { state.accept(subscription) }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            log("receive value: (\(input))")
            // As in Combine, a value before the subscription passes on; none does after the end.
            let ended = lock.withLock { state.isTerminal }
            guard !ended else { return .none }
            let demand = downstream.receive(input)
            if demand != .none {
                log(Self.describe(demand) + " (synchronous)")
            }
            return demand
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            switch completion {
            case .finished: log("receive finished")
            case .failure(let error): log("receive error: (\(error))")
            }
            let forward = lock.withLock { state.complete() }
            if forward {
                downstream.receive(completion: completion)
            }
        }

        func request(_ demand: Subscribers.Demand) {
            log(Self.describe(demand))
            let upstream = lock.withLock { state.subscription }
            upstream?.request(demand)
        }

        func cancel() {
            log("receive cancel")
            // As in Combine, a cancel before the upstream's subscription is forgotten (the downstream gets
            // this subscription only after the upstream's).
            let upstream = lock.withLock { state.cancelIfSubscribed() }
            upstream?.cancel()
        }

        /// `"request unlimited"` or `"request max: (n)"`.
        private static func describe(_ demand: Subscribers.Demand) -> String {
            if let max = demand.max { "request max: (\(max))" } else { "request unlimited" }
        }

        /// Writes one line (prefix, text, newline) to the stream, in a single `write` so that lines logged
        /// from several threads do not interleave, or to standard output.
        private func log(_ text: String) {
            if var stream {
                stream.write(linePrefix + text + "\n")
            } else {
                Swift.print(linePrefix + text)
            }
        }
    }
}

extension Publisher {
    /// Logs every event of this publisher — subscription, requests, values, completion, cancellation —
    /// and republishes it unchanged.
    ///
    /// - Parameters:
    ///   - prefix: put before every line, followed by `": "`; none when empty.
    ///   - stream: where the lines go; standard output when `nil`.
    /// - Returns: a publisher that emits, completes and fails exactly as this one.
    public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}
