import Ripple

/// A subscription a state or event subject keeps while it lives: it can be told how the stream ended,
/// and tells the subject when it ends.
protocol StreamMember<Failure>: AnyObject, Sendable {
    associatedtype Failure: Error
    /// Sets what runs when the subscription ends and returns true; false when it already ended.
    func setOnEnd(_ onEnd: @escaping () -> Void) -> Bool
    /// Ends the subscription's stream with `completion` (after what it still has to deliver).
    func finish(_ completion: Subscribers.Completion<Failure>)
}

extension BufferedSubscription: StreamMember {}

/// The live subscriptions of a state or event subject, and how its stream ended.
///
/// A subscription is registered after its subscriber has it (so that a completion cannot reach the
/// subscriber first), or before when it delivers nothing until the handover ends (an event subject's, so
/// that an event sent during the handover is kept), and removed when it ends; one that comes after the end
/// is finished at once.
final class StreamMembers<Member: StreamMember>: Sendable {
    private struct State {
        var completion: Subscribers.Completion<Member.Failure>?
        var members: [ObjectIdentifier: Member] = [:]
    }

    private let lock = Lock()
    private nonisolated(unsafe) var state = State()

    /// The number of live subscriptions.
    var count: Int { lock.withLock { state.members.count } }

    /// Whether the stream has ended.
    var hasEnded: Bool { lock.withLock { state.completion != nil } }

    /// The live subscriptions (none once the stream ended).
    var live: [Member] { lock.withLock { Array(state.members.values) } }

    /// Registers `member`, or finishes it at once when the stream has ended.
    ///
    /// - Parameter member: a subscription its subscriber already has.
    func register(_ member: Member) {
        let id = ObjectIdentifier(member)
        let ended = lock.withLock { () -> Subscribers.Completion<Member.Failure>? in
            if let completion = state.completion { return completion }
            state.members[id] = member
            return nil
        }
        if let ended {
            member.finish(ended)
        } else if !member.setOnEnd({ [weak self] in self?.remove(id) }) {
            // Cancelled while it was being registered.
            remove(id)
        }
    }

    /// Ends the stream with `completion`: returns the subscriptions to finish (none when it had ended).
    ///
    /// - Parameter completion: how the stream ends.
    /// - Returns: the subscriptions that were live.
    func end(_ completion: Subscribers.Completion<Member.Failure>) -> [Member] {
        lock.withLock {
            guard state.completion == nil else { return [] }
            state.completion = completion
            defer { state.members = [:] }
            return Array(state.members.values)
        }
    }

    private func remove(_ id: ObjectIdentifier) {
        lock.withLock { _ = state.members.removeValue(forKey: id) }
    }
}
