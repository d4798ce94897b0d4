import RippleTestKit

// The custom operator of RippleTestKit's article "Testing a custom operator", compiled and tested here as
// it is shown there.

extension Publisher {
    /// Each value with the one before it: `1, 2, 3` becomes `(1, 2), (2, 3)`.
    ///
    /// - Returns: A publisher of pairs of consecutive values.
    func pairwise() -> Pairwise<Self> { Pairwise(upstream: self) }
}

/// Emits each upstream value paired with the previous one.
struct Pairwise<Upstream: Publisher>: Publisher {
    typealias Output = (Upstream.Output, Upstream.Output)
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.subscribe(Inner(downstream: subscriber))
    }

    /// Subscribes to the upstream for one downstream subscriber.
    private final class Inner<Downstream: Subscriber>: Subscriber
    where Downstream.Input == Output, Downstream.Failure == Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let downstream: Downstream
        var previous: Upstream.Output?

        init(downstream: Downstream) { self.downstream = downstream }

        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let previous else {
                previous = input
                return .max(1)  // the first value makes no pair: ask upstream for one more in its place
            }
            self.previous = input
            return downstream.receive((previous, input))
        }

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }
    }
}
