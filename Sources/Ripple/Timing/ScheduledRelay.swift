/// The subscriber and subscription behind ``Publishers/ReceiveOn`` and ``Publishers/Delay``: it hands
/// every value and the completion from its upstream to a scheduler, now or after an interval, and
/// delivers them to its downstream when the scheduler runs them.
///
/// - The subscription reaches the downstream at once, on the subscribing thread (as in Combine).
/// - `request` and `cancel` go straight to the upstream; demand the downstream returns from
///   `receive(_:)` is requested from the upstream after the delivery (as in Combine, also once the
///   upstream has completed and its completion waits on the scheduler).
/// - After `cancel()`, values and a completion still waiting on the scheduler are dropped.
/// - Deliveries never overlap or nest, whatever the scheduler (see ``SerialSignalQueue``).
/// - As in Combine, the relay of `receive(on:)` describes itself as `"ReceiveOn"` with an empty mirror, and
///   the relay of `delay` customises neither (`Kind` tells them apart, so the conformances are the type's).
internal final class ScheduledRelay<Downstream: Subscriber, Context: Scheduler, Kind: ScheduledRelayKind>:
    Subscriber, Subscription
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    /// When the relay hands its signals to the scheduler.
    enum Timing {
        /// As soon as possible (`receive(on:)`).
        case now(Context.SchedulerOptions?)
        /// After `interval`, within `tolerance` (`delay(for:)`).
        case after(
            Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride, Context.SchedulerOptions?)
    }

    private enum Signal {
        case subscription
        case value(Input)
        case completion(Subscribers.Completion<Failure>)
    }

    // Immutable configuration first: a scheduler such as `ImmediateScheduler` has no size, and a stored
    // property of no size must not share its address with state written under the lock.
    private let scheduler: Context
    private let timing: Timing
    private let downstream: Downstream
    private let lock = Lock()
    /// `pendingTerminal` (holding the upstream, which a delivered value may still ask for more) while the
    /// upstream's completion waits on the scheduler.
    private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
    private nonisolated(unsafe) var signals = SerialSignalQueue<Signal>()

    init(downstream: Downstream, scheduler: Context, timing: Timing, kind: Kind.Type) {
        self.scheduler = scheduler
        self.timing = timing
        self.downstream = downstream
    }

    func receive(subscription: any Subscription) {
        let result = lock.withLock { () -> (accepted: Bool, deliver: Signal?) in
            guard status.accept(subscription) else { return (false, nil) }
            return (true, signals.offer(.subscription))
        }
        guard result.accepted else {
            subscription.cancel()
            return
        }
        if let signal = result.deliver { deliver(signal) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let isSubscribed = lock.withLock { status.isSubscribed }
        guard isSubscribed else { return .none }
        schedule { self.scheduled(.value(input)) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let accepted = lock.withLock { () -> Bool in
            guard let upstream = status.subscription else { return false }
            status = .pendingTerminal(upstream)
            return true
        }
        guard accepted else { return }
        schedule { self.scheduled(.completion(completion)) }
    }

    func request(_ demand: Subscribers.Demand) {
        let upstream = lock.withLock { status.subscription }
        upstream?.request(demand)
    }

    /// A cancel before the upstream's subscription is forgotten, as in Combine; no downstream reaches that
    /// case, because the relay goes downstream only after the upstream's subscription has arrived.
    func cancel() {
        let upstream = lock.withLock { () -> (any Subscription)? in
            if status.isAwaitingSubscription { return nil }
            signals.discardPending()
            return status.cancel()
        }
        upstream?.cancel()
    }

    // MARK: Private

    private func schedule(_ action: @escaping () -> Void) {
        switch timing {
        case .now(let options):
            scheduler.schedule(options: options, action)
        case .after(let interval, let tolerance, let options):
            scheduler.schedule(
                after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options, action)
        }
    }

    /// A signal the scheduler runs: delivered unless the relay was cancelled meanwhile.
    private func scheduled(_ signal: Signal) {
        let first = lock.withLock { () -> Signal? in
            switch status {
            case .awaitingSubscription, .terminal:
                return nil
            case .subscribed, .pendingTerminal:
                if case .completion = signal { status = .terminal }
                return signals.offer(signal)
            }
        }
        if let first { deliver(first) }
    }

    /// Delivers `first`, then whatever was queued meanwhile, until nothing is left.
    private func deliver(_ first: Signal) {
        var signal = first
        while true {
            switch signal {
            case .subscription:
                downstream.receive(subscription: self)
            case .value(let value):
                let demand = downstream.receive(value)
                if demand > 0 {
                    let upstream = lock.withLock { () -> (any Subscription)? in
                        switch status {
                        case .subscribed(let upstream), .pendingTerminal(let upstream?): return upstream
                        case .awaitingSubscription, .pendingTerminal(nil), .terminal: return nil
                        }
                    }
                    upstream?.request(demand)
                }
            case .completion(let completion):
                downstream.receive(completion: completion)
            }
            guard let next = lock.withLock({ signals.next() }) else { return }
            signal = next
        }
    }
}

/// Which operator a ``ScheduledRelay`` serves; it decides the relay's reflection.
internal protocol ScheduledRelayKind {}

/// The relay of ``Publishers/ReceiveOn``: described as `"ReceiveOn"`, as in Combine.
internal enum ReceiveOnRelay: ScheduledRelayKind {}

/// The relay of ``Publishers/Delay``: like Combine's, it customises neither description nor mirror.
internal enum DelayRelay: ScheduledRelayKind {}

extension ScheduledRelay: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Kind == ReceiveOnRelay {
    /// `"ReceiveOn"`, as in Combine.
    var description: String { "ReceiveOn" }

    /// An empty mirror.
    var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

    /// The description, for playgrounds.
    var playgroundDescription: Any { description }
}
