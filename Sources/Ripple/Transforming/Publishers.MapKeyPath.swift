extension Publishers {
    /// A publisher that delivers the value of one key path of every upstream value.
    ///
    /// It passes the upstream's subscription through and forwards the completion unchanged.
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are read.
        public let upstream: Upstream

        /// The key path read from each upstream value.
        public let keyPath: KeyPath<Upstream.Output, Output>

        @inlinable init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        /// Attaches `subscriber` to the upstream through a key-path-reading subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            let keyPath = self.keyPath
            upstream.subscribe(
                TransformingKeyPathSubscriber(downstream: subscriber, keyPaths: [keyPath]) { $0[keyPath: keyPath] }
            )
        }
    }

    /// A publisher that delivers the values of two key paths of every upstream value, as a tuple.
    ///
    /// It passes the upstream's subscription through and forwards the completion unchanged.
    public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
        /// A tuple of the two values read.
        public typealias Output = (Output0, Output1)
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are read.
        public let upstream: Upstream

        /// The key path of the tuple's first element.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of the tuple's second element.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        @inlinable init(
            upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>, keyPath1: KeyPath<Upstream.Output, Output1>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
        }

        /// Attaches `subscriber` to the upstream through a key-path-reading subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            let keyPath0 = self.keyPath0
            let keyPath1 = self.keyPath1
            upstream.subscribe(
                TransformingKeyPathSubscriber(downstream: subscriber, keyPaths: [keyPath0, keyPath1]) {
                    ($0[keyPath: keyPath0], $0[keyPath: keyPath1])
                }
            )
        }
    }

    /// A publisher that delivers the values of three key paths of every upstream value, as a tuple.
    ///
    /// It passes the upstream's subscription through and forwards the completion unchanged.
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        /// A tuple of the three values read.
        public typealias Output = (Output0, Output1, Output2)
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are read.
        public let upstream: Upstream

        /// The key path of the tuple's first element.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of the tuple's second element.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// The key path of the tuple's third element.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        @inlinable init(
            upstream: Upstream,
            keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>,
            keyPath2: KeyPath<Upstream.Output, Output2>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        /// Attaches `subscriber` to the upstream through a key-path-reading subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            let keyPath0 = self.keyPath0
            let keyPath1 = self.keyPath1
            let keyPath2 = self.keyPath2
            upstream.subscribe(
                TransformingKeyPathSubscriber(downstream: subscriber, keyPaths: [keyPath0, keyPath1, keyPath2]) {
                    ($0[keyPath: keyPath0], $0[keyPath: keyPath1], $0[keyPath: keyPath2])
                }
            )
        }
    }
}

/// The subscriber the `MapKeyPath` publishers attach upstream: it reads the key paths of each value and hands
/// the upstream subscription straight to the downstream. Described as Combine's `"ValueForKey"` or
/// `"ValueForKeys"`, with the key paths as mirror children (`keyPath`, or `keyPath0`, `keyPath1`, …).
@usableFromInline
internal struct TransformingKeyPathSubscriber<Input, Failure: Error, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Failure == Failure {
    @usableFromInline let combineIdentifier = CombineIdentifier()
    @usableFromInline let downstream: Downstream
    @usableFromInline let keyPaths: [AnyKeyPath]
    @usableFromInline let read: (Input) -> Downstream.Input

    @inlinable init(downstream: Downstream, keyPaths: [AnyKeyPath], read: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.keyPaths = keyPaths
        self.read = read
    }

    @usableFromInline var description: String { keyPaths.count == 1 ? "ValueForKey" : "ValueForKeys" }
    @usableFromInline var customMirror: Mirror {
        let children: [Mirror.Child] =
            keyPaths.count == 1
            ? [(label: "keyPath", value: keyPaths[0])]
            : keyPaths.enumerated().map { (label: "keyPath\($0.offset)", value: $0.element) }
        return Mirror(self, children: children)
    }
    @usableFromInline var playgroundDescription: Any { description }

    @inlinable func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(read(input))
    }

    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }
}

extension Publisher {
    /// Reads one key path of every value.
    ///
    /// - Parameter keyPath: The key path to read.
    /// - Returns: a publisher that emits `value[keyPath: keyPath]` for each upstream value and completes as
    ///   the upstream does.
    @inlinable
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }

    /// Reads two key paths of every value.
    ///
    /// - Parameters:
    ///   - keyPath0: The key path of the first value of each tuple.
    ///   - keyPath1: The key path of the second value of each tuple.
    /// - Returns: a publisher that emits a tuple of both values for each upstream value and completes as the
    ///   upstream does.
    @inlinable
    public func map<T0, T1>(
        _ keyPath0: KeyPath<Output, T0>,
        _ keyPath1: KeyPath<Output, T1>
    ) -> Publishers.MapKeyPath2<Self, T0, T1> {
        Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
    }

    /// Reads three key paths of every value.
    ///
    /// - Parameters:
    ///   - keyPath0: The key path of the first value of each tuple.
    ///   - keyPath1: The key path of the second value of each tuple.
    ///   - keyPath2: The key path of the third value of each tuple.
    /// - Returns: a publisher that emits a tuple of the three values for each upstream value and completes as
    ///   the upstream does.
    @inlinable
    public func map<T0, T1, T2>(
        _ keyPath0: KeyPath<Output, T0>,
        _ keyPath1: KeyPath<Output, T1>,
        _ keyPath2: KeyPath<Output, T2>
    ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}
