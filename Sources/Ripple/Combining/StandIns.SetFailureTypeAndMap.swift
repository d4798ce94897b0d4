// STAND-INS, TO DELETE WHEN MERGING: `Publishers.SetFailureType` and `Publishers.Map` belong to another
// operator folder. The Combine signatures of `flatMap` and `switchToLatest` for `Never` failures return
// them, so this branch carries minimal versions with Combine's names, stored properties and initialisers
// (`SetFailureType(upstream:)`, `Map(upstream:transform:)`), which is all the combining operators use.
// Once the real ones are on the branch, delete this file: nothing else changes.

extension Publishers {
    /// A publisher that republishes a publisher that cannot fail as one whose failure type is `Failure`.
    ///
    /// It emits the upstream's elements and finishes when the upstream finishes; it never fails.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The upstream's elements.
        public typealias Output = Upstream.Output

        /// The publisher that cannot fail.
        public let upstream: Upstream

        /// Republishes `upstream` with the failure type `Failure`.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes `subscriber` to the upstream; the upstream's subscription is passed through.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(FailureWidener(downstream: subscriber))
        }
    }

    /// A publisher that transforms every upstream element with a closure.
    ///
    /// It emits `transform(element)` for each upstream element and completes as the upstream does.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose elements are transformed.
        public let upstream: Upstream
        /// Transforms each element.
        public let transform: (Upstream.Output) -> Output

        /// Republishes `upstream`'s elements transformed by `transform`.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes `subscriber` to the upstream; the upstream's subscription is passed through.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Transformer(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.SetFailureType {
    private struct FailureWidener<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Upstream.Output, Downstream.Failure == Failure
    {
        let downstream: Downstream
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: .finished)
        }
    }
}

extension Publishers.Map {
    private struct Transformer<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        let downstream: Downstream
        let transform: (Upstream.Output) -> Output
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(transform(input))
        }

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }
    }
}
