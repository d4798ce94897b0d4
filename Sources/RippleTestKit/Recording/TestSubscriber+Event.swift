extension TestSubscriber {
    /// One entry of a ``TestSubscriber``'s history: a signal it received, or a request or cancel it sent.
    ///
    /// ``TestSubscriber/events`` holds the signals received (subscription, values, completion);
    /// ``TestSubscriber/history`` holds those and, in the order they happened, the demand the subscriber asked
    /// for and its cancel. With `Equatable` values and failures, whole histories compare with `==`.
    public enum Event {
        /// A subscription arrived; the payload is its description (`String(describing:)`), which for Ripple's
        /// operators is the operator's name, as in Combine.
        case subscription(String)
        /// A value arrived.
        case value(Input)
        /// The publisher finished or failed.
        case completion(Subscribers.Completion<Failure>)
        /// The subscriber asked for more values: on subscription, through ``TestSubscriber/request(_:)``, or by
        /// returning demand from `receive(_:)`.
        case request(Subscribers.Demand)
        /// The subscriber cancelled its subscription.
        case cancel

        /// A successful completion.
        public static var finished: Event { .completion(.finished) }

        /// A failure with `error`.
        ///
        /// - Parameter error: The error the publisher failed with.
        /// - Returns: The completion event for it.
        public static func failure(_ error: Failure) -> Event { .completion(.failure(error)) }

        /// Whether this entry is a signal the subscriber received (not a request or cancel it sent).
        public var isReceived: Bool {
            switch self {
            case .subscription, .value, .completion: true
            case .request, .cancel: false
            }
        }
    }
}

extension TestSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}

extension TestSubscriber.Event: Sendable where Input: Sendable, Failure: Sendable {}

extension TestSubscriber.Event: CustomStringConvertible {
    /// The entry as a test failure shows it, e.g. `value(3)` or `request(max(1))`.
    public var description: String {
        switch self {
        case .subscription(let name): "subscription(\(name))"
        case .value(let value): "value(\(value))"
        case .completion(.finished): "finished"
        case .completion(.failure(let error)): "failure(\(error))"
        case .request(let demand): "request(\(demand))"
        case .cancel: "cancel"
        }
    }
}
