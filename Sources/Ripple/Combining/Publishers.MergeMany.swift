extension Publishers {
    /// A publisher that interleaves the elements of any number of publishers of one type, in the order
    /// they arrive.
    ///
    /// It behaves as ``Publishers/Merge``: it finishes once every publisher finished and every buffered
    /// element was delivered, fails with the first failure (cancelling the others), and, while the
    /// downstream demand is finite, asks each publisher for one element at a time. With no publishers it
    /// finishes at the downstream's first request, as Combine's does.
    public struct MergeMany<Upstream: Publisher>: Publisher {
        /// The upstreams' element type.
        public typealias Output = Upstream.Output
        /// The upstreams' failure type.
        public typealias Failure = Upstream.Failure

        /// The publishers to merge, in subscription order.
        public let publishers: [Upstream]

        /// Creates a publisher that merges the given publishers (zero or more).
        ///
        /// - Parameter upstream: The publishers to merge.
        @inlinable public init(_ upstream: Upstream...) {
            publishers = upstream
        }

        /// Creates a publisher that merges the publishers of a sequence (zero or more).
        ///
        /// - Parameter upstream: The publishers to merge.
        @inlinable public init<S: Swift.Sequence>(_ upstream: S) where S.Element == Upstream {
            publishers = Array(upstream)
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each publisher in order.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: publishers.count)
            subscriber.receive(subscription: fanIn)
            for (publisher, source) in Swift.zip(publishers, sources) {
                publisher.subscribe(source)
            }
        }

        /// A publisher that merges these publishers and `other`.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        @inlinable public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
            Publishers.MergeMany(publishers + [other])
        }
    }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {
    /// Whether both merge equal publishers in the same order.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.publishers == rhs.publishers
    }
}
