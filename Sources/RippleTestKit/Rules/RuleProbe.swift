/// The subscriber ``PublisherRuleChecker`` attaches in one scenario: it asks for values the way the scenario
/// says and records every rule the publisher breaks meanwhile.
final class RuleProbe<Input, Failure: Error>: Subscriber, CustomStringConvertible, @unchecked Sendable {
    /// How the probe asks for values.
    struct Behaviour {
        /// What to request when the subscription arrives.
        var initialDemand: Subscribers.Demand = .none
        /// What `receive(_:)` returns for the n-th value (1-based).
        var demandAfterValue: (Int) -> Subscribers.Demand = { _ in .none }
        /// Whether to request one more value through the subscription, from inside `receive(_:)`, after the
        /// n-th value (the recursion scenario).
        var requestsInsideValue: (Int) -> Bool = { _ in false }
    }

    /// Everything the probe counts, guarded by `lock`.
    private struct State {
        var subscription: (any Subscription)?
        var subscriptions = 0
        var requested = Subscribers.Demand.none
        var received = 0
        var terminated = false
        /// Set once the scenario's grace after its cancel is over: any signal from then on breaks §1.8.
        var cancelSettled = false
        /// Set once the scenario requested after its cancel: any value from then on breaks §3.6.
        var requestedAfterCancel = false
        /// Signals being delivered right now (more than one: overlap, or recursion through a request).
        var active = 0
        /// Requests the probe is making from inside a signal right now.
        var requestsInsideSignal = 0
        var deepestRecursion = 0
        var violations: [ReactiveStreamsRule: RuleViolation] = [:]
        var order: [ReactiveStreamsRule] = []
    }

    private let lock = Lock()
    nonisolated(unsafe) private var state = State()
    private let scenario: String
    private let behaviour: Behaviour

    /// A probe for the scenario named `scenario`.
    init(scenario: String, behaviour: Behaviour) {
        self.scenario = scenario
        self.behaviour = behaviour
    }

    var description: String { "RuleProbe(\(scenario))" }

    /// The rules broken so far, in the order first seen.
    var violations: [RuleViolation] { lock.withLock { state.order.compactMap { state.violations[$0] } } }

    /// The deepest nesting of values delivered from inside a request made inside a value.
    var deepestRecursion: Int { lock.withLock { state.deepestRecursion } }

    /// Whether a completion arrived.
    var isTerminated: Bool { lock.withLock { state.terminated } }

    /// Whether a subscription arrived.
    var isSubscribed: Bool { lock.withLock { state.subscriptions > 0 } }

    // MARK: Driving the scenario

    /// Requests `demand` from outside any signal.
    func request(_ demand: Subscribers.Demand) {
        let subscription = lock.withLock { () -> (any Subscription)? in
            state.requested += demand
            return state.subscription
        }
        subscription?.request(demand)
    }

    /// Cancels the subscription from outside any signal.
    func cancel() {
        let subscription = lock.withLock { state.subscription }
        subscription?.cancel()
    }

    /// Lets go of the subscription at the end of the scenario, so that the probe and the subscription (which
    /// keeps the probe, unless the publisher released it) no longer keep each other.
    func endScenario() {
        let released = lock.withLock { () -> (any Subscription)? in
            defer { state.subscription = nil }
            return state.subscription
        }
        withExtendedLifetime(released) {}
    }

    /// Marks the end of the grace after the scenario's cancel: signals from now on break §1.8.
    func endGraceAfterCancel() {
        lock.withLock { state.cancelSettled = true }
    }

    /// Requests `demand` after the cancel (a request that must do nothing, §3.6).
    func requestAfterCancel(_ demand: Subscribers.Demand) {
        let subscription = lock.withLock { () -> (any Subscription)? in
            state.requestedAfterCancel = true
            return state.subscription
        }
        subscription?.request(demand)
    }

    /// Records that `rule` was broken, with `detail` if it is the first time in this scenario.
    func record(_ rule: ReactiveStreamsRule, _ detail: String) {
        lock.withLock { note(rule, detail) }
    }

    // MARK: Subscriber

    func receive(subscription: any Subscription) {
        enter()
        defer { exit() }
        let demand = behaviour.initialDemand
        let isFirst = lock.withLock { () -> Bool in
            state.subscriptions += 1
            if state.subscriptions > 1 { note(.subscriptionFirst, "a second subscription arrived") }
            if state.terminated { note(.noSignalsAfterTermination, "a subscription arrived after the completion") }
            guard state.subscriptions == 1 else { return false }
            state.subscription = subscription
            state.requested += demand
            return true
        }
        guard isFirst, demand > .none else { return }
        requestInsideSignal(subscription, demand)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        enter()
        defer { exit() }
        let (count, subscription) = lock.withLock { () -> (Int, (any Subscription)?) in
            state.received += 1
            let count = state.received
            if state.subscriptions == 0 { note(.subscriptionFirst, "value \(count) arrived before any subscription") }
            if state.terminated { note(.noSignalsAfterTermination, "value \(count) arrived after the completion") }
            if state.requestedAfterCancel {
                note(.requestAfterCancelDoesNothing, "value \(count) arrived after a request made after cancel")
            } else if state.cancelSettled {
                note(.stopAfterCancel, "value \(count) arrived after the cancel")
            }
            if let limit = state.requested.max, count > limit {
                note(.demand, "value \(count) arrived when \(limit) had been requested")
            }
            return (count, state.subscription)
        }
        if behaviour.requestsInsideValue(count), let subscription {
            requestInsideSignal(subscription, .max(1))
        }
        let more = behaviour.demandAfterValue(count)
        if more > .none { lock.withLock { state.requested += more } }
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        enter()
        defer { exit() }
        lock.withLock {
            if state.subscriptions == 0 { note(.subscriptionFirst, "the completion arrived before any subscription") }
            if state.terminated { note(.noSignalsAfterTermination, "a second completion arrived") }
            if state.cancelSettled { note(.stopAfterCancel, "a completion arrived after the cancel") }
            state.terminated = true
        }
    }

    // MARK: Bookkeeping

    /// Requests `demand` from inside a signal, so that values delivered meanwhile count as recursion.
    private func requestInsideSignal(_ subscription: any Subscription, _ demand: Subscribers.Demand) {
        lock.withLock {
            state.requested += demand
            state.requestsInsideSignal += 1
        }
        subscription.request(demand)
        lock.withLock { state.requestsInsideSignal -= 1 }
    }

    /// A signal begins: another one still being delivered is recursion if the probe is requesting from inside
    /// it, and an overlap (§1.3) otherwise.
    private func enter() {
        lock.withLock {
            if state.active > 0 && state.requestsInsideSignal == 0 {
                note(.serialSignals, "a signal began while another was still being delivered")
            }
            state.active += 1
            state.deepestRecursion = max(state.deepestRecursion, state.active)
        }
    }

    /// A signal ends.
    private func exit() {
        lock.withLock { state.active -= 1 }
    }

    /// Records `rule` (the lock held).
    private func note(_ rule: ReactiveStreamsRule, _ detail: String) {
        if let seen = state.violations[rule] {
            state.violations[rule] = RuleViolation(
                rule: rule, scenario: scenario, detail: seen.detail, occurrences: seen.occurrences + 1)
        } else {
            state.violations[rule] = RuleViolation(rule: rule, scenario: scenario, detail: detail)
            state.order.append(rule)
        }
    }
}
