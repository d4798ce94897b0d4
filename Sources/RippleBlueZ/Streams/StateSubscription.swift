import Ripple

/// One subscriber's end of a ``StateSubject``: whether the subject's value changed since the subscriber
/// was last given one, and the subscriber's demand. It holds no value of its own: each delivery reads the
/// subject's current value, so what it delivers is never older than the current value.
///
/// State lives in one `State` value beside a ``Lock``, touched only inside it; no subscriber or closure
/// is called with the lock held. Deliveries never overlap and happen in the subject's delivery context.
final class StateSubscription<Output: Sendable, Failure: Error>: Subscription, StreamMember, CustomStringConvertible,
    Sendable
{
    private struct State {
        var downstream: AnySubscriber<Output, Failure>?
        var demand = Subscribers.Demand.none
        /// The subject's value may differ from the one last delivered (at first: whether to deliver it).
        var changed: Bool
        var lastDelivered: Output?
        /// A delivery is under way.
        var delivering = false
        var completion: Subscribers.Completion<Failure>?
        var onEnd: (() -> Void)?
    }

    /// What one turn of the delivery loop does.
    private enum Step {
        /// Read the subject's value and deliver it unless it duplicates `last`.
        case read(AnySubscriber<Output, Failure>, last: Output?)
        case complete(AnySubscriber<Output, Failure>, Subscribers.Completion<Failure>, (() -> Void)?)
    }

    private let subject: StateSubject<Output, Failure>
    private let lock = Lock()
    private nonisolated(unsafe) var state: State

    /// A subscription of `subject` for `downstream`, which is given the current value first when
    /// `startsWithValue`.
    init(subject: StateSubject<Output, Failure>, downstream: AnySubscriber<Output, Failure>, startsWithValue: Bool) {
        self.subject = subject
        state = State(downstream: downstream, changed: startsWithValue)
    }

    var description: String { "StateSubject" }

    /// Sets what runs when the stream ends (cancelled or completed) and returns true; returns false,
    /// keeping nothing, when it already ended.
    func setOnEnd(_ onEnd: @escaping () -> Void) -> Bool {
        lock.withLock { () -> Bool in
            guard state.downstream != nil else { return false }
            state.onEnd = onEnd
            return true
        }
    }

    /// The subject's value changed: delivered when the subscriber has demand.
    func valueChanged() {
        let ready = lock.withLock { () -> Bool in
            guard state.downstream != nil, state.completion == nil else { return false }
            state.changed = true
            return state.demand > .none && !state.delivering
        }
        if ready { subject.context.run { self.drain() } }
    }

    /// The stream ends with `completion`, after the latest value the subscriber has not had.
    func finish(_ completion: Subscribers.Completion<Failure>) {
        let due = lock.withLock { () -> Bool in
            guard state.downstream != nil, state.completion == nil else { return false }
            state.completion = completion
            return true
        }
        if due { subject.context.run { self.drain() } }
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let ready = lock.withLock { () -> Bool in
            guard state.downstream != nil else { return false }
            state.demand += demand
            return state.changed || state.completion != nil
        }
        if ready { subject.context.run { self.drain() } }
    }

    func cancel() {
        let onEnd = lock.withLock { () -> (() -> Void)? in
            guard state.downstream != nil else { return nil }
            state.downstream = nil
            state.lastDelivered = nil
            defer { state.onEnd = nil }
            return state.onEnd
        }
        onEnd?()
    }

    /// Delivers the current value when it changed and demand allows, then the completion when due;
    /// returns at once when another call is delivering.
    private func drain() {
        while true {
            let step = lock.withLock { () -> Step? in
                guard !state.delivering, let downstream = state.downstream else { return nil }
                if state.changed, state.demand > .none {
                    state.changed = false
                    state.delivering = true
                    return .read(downstream, last: state.lastDelivered)
                }
                if !state.changed, let completion = state.completion {
                    state.downstream = nil
                    state.lastDelivered = nil
                    defer { state.onEnd = nil }
                    return .complete(downstream, completion, state.onEnd)
                }
                return nil
            }
            switch step {
            case nil:
                return
            case .read(let downstream, let last)?:
                let value = subject.value
                if let last, subject.isDuplicate(last, value) {
                    lock.withLock { state.delivering = false }
                    continue
                }
                let delivered = lock.withLock { () -> Bool in
                    // Cancelled meanwhile: nothing more goes out.
                    guard state.downstream != nil else { return false }
                    state.demand -= 1
                    state.lastDelivered = value
                    return true
                }
                guard delivered else { return }
                let more = downstream.receive(value)
                lock.withLock {
                    state.demand += more
                    state.delivering = false
                }
            case .complete(let downstream, let completion, let onEnd)?:
                onEnd?()
                downstream.receive(completion: completion)
                return
            }
        }
    }
}
