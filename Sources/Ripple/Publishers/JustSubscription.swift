/// The subscription of ``Just``, also used (under other names) by ``Result/Publisher`` for a success and
/// ``Optional/Publisher`` for a value: on the first request it delivers its one value, then `.finished`.
///
/// `request` and `cancel` may come from any thread; the value is delivered at most once, by whichever
/// request takes the downstream first. A request made from inside `receive(_:)` finds the downstream
/// already taken and does nothing, so there is no re-entrant second delivery.
internal final class JustSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    private let lock = Lock()
    /// The subscriber, until the value is delivered or the subscription cancelled.
    private nonisolated(unsafe) var downstream: Downstream?
    private let value: Downstream.Input
    /// Combine's name for the subscription: "Just", "Once" or "Optional".
    let description: String

    init(value: Downstream.Input, downstream: Downstream, description: String) {
        self.value = value
        self.downstream = downstream
        self.description = description
    }

    /// One unlabelled child: the value.
    var customMirror: Mirror {
        Mirror(self, unlabeledChildren: CollectionOfOne(value))
    }

    var playgroundDescription: Any { description }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let target: Downstream? = lock.withLock {
            let target = downstream
            downstream = nil
            return target
        }
        guard let target else { return }
        _ = target.receive(value)
        target.receive(completion: .finished)
    }

    func cancel() {
        let released: Downstream? = lock.withLock {
            let released = downstream
            downstream = nil
            return released
        }
        _ = released
    }
}
