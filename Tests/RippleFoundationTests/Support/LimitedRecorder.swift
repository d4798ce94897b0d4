import Foundation
import Ripple

/// A subscriber that requests `demand` values once and records them.
final class LimitedRecorder<Input>: Subscriber, @unchecked Sendable {
    typealias Failure = Never
    private let demand: Subscribers.Demand
    private let recorded = Collected<Input>()
    private let lock = NSLock()
    private var subscription: (any Subscription)?

    init(demand: Int) {
        self.demand = .max(demand)
    }

    var values: [Input] { recorded.values }

    func receive(subscription: any Subscription) {
        lock.withLock { self.subscription = subscription }
        subscription.request(demand)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        recorded.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}

    /// The subscription received.
    var subscriptionForTests: (any Subscription)? { lock.withLock { subscription } }

    /// Cancels the subscription.
    func cancel() {
        let subscription = lock.withLock { self.subscription }
        subscription?.cancel()
    }
}
