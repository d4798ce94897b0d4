@testable import Ripple

/// A subscriber that records everything it receives and whose demand the test controls.
///
/// - `initialDemand` is requested as soon as the subscription arrives (`nil` requests nothing: call
///   ``request(_:)`` later).
/// - `onValue` is called with each value and returns the extra demand `receive(_:)` answers with.
///
/// It checks the contract as it goes: ``demandViolations`` counts values that arrived without demand,
/// ``orderViolations`` counts signals after a completion or before the subscription.
final class TestSubscriber<Input: Equatable, Failure: Error & Equatable>: Subscriber, CustomStringConvertible,
    @unchecked Sendable
{
    private let lock = Lock()
    private var recorded: [Event<Input, Failure>] = []
    private var storedSubscription: (any Subscription)?
    private var outstanding = Subscribers.Demand.none
    private var completed = false
    private var violationsOfDemand = 0
    private var violationsOfOrder = 0
    private let initialDemand: Subscribers.Demand?
    private let onValue: (Input) -> Subscribers.Demand
    private let onCompletion: (Subscribers.Completion<Failure>) -> Void

    init(
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none },
        onCompletion: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in }
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    /// A subscriber that asks for one value at first and one more after each value.
    static func oneAtATime() -> TestSubscriber {
        TestSubscriber(initialDemand: .max(1), onValue: { _ in .max(1) })
    }

    var description: String { "TestSubscriber" }

    var events: [Event<Input, Failure>] { lock.withLock { recorded } }
    var values: [Input] {
        lock.withLock {
            recorded.compactMap { if case .value(let value) = $0 { value } else { nil } }
        }
    }
    var completion: Subscribers.Completion<Failure>? {
        lock.withLock {
            recorded.lazy.compactMap { if case .completion(let completion) = $0 { completion } else { nil } }.first
        }
    }
    var subscription: (any Subscription)? { lock.withLock { storedSubscription } }
    var demandViolations: Int { lock.withLock { violationsOfDemand } }
    var orderViolations: Int { lock.withLock { violationsOfOrder } }

    /// Requests `demand` through the stored subscription.
    func request(_ demand: Subscribers.Demand) {
        let subscription = lock.withLock { () -> (any Subscription)? in
            outstanding += demand
            return storedSubscription
        }
        subscription?.request(demand)
    }

    /// Cancels the stored subscription.
    func cancel() {
        let subscription = lock.withLock { storedSubscription }
        subscription?.cancel()
    }

    func receive(subscription: any Subscription) {
        lock.withLock {
            if storedSubscription != nil || completed { violationsOfOrder += 1 }
            storedSubscription = subscription
            recorded.append(.subscription(String(describing: subscription)))
            if let initialDemand, initialDemand != .none { outstanding += initialDemand }
        }
        if let initialDemand, initialDemand != .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.withLock {
            if completed || storedSubscription == nil { violationsOfOrder += 1 }
            if outstanding == .none { violationsOfDemand += 1 } else { outstanding -= 1 }
            recorded.append(.value(input))
        }
        let more = onValue(input)
        lock.withLock { outstanding += more }
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        lock.withLock {
            if completed { violationsOfOrder += 1 }
            completed = true
            recorded.append(.completion(completion))
        }
        onCompletion(completion)
    }
}
