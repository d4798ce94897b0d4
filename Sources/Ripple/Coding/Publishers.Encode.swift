extension Publishers {
    /// A publisher that encodes every upstream value with a ``TopLevelEncoder``.
    ///
    /// An encoding error cancels the upstream and fails the stream with that error; an upstream failure is
    /// forwarded as `any Error`. It provides its own subscription (`"Encode"`) and passes demand through.
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher where Upstream.Output: Encodable {
        /// Fails with the upstream's error or the encoder's.
        public typealias Failure = any Error
        /// What the encoder produces.
        public typealias Output = Coder.Output

        /// The publisher whose values are encoded.
        public let upstream: Upstream

        /// The encoder's `encode`, kept as a closure as Combine keeps it (the encoder is not exposed).
        @usableFromInline let encode: (Upstream.Output) throws -> Coder.Output

        /// Creates a publisher that encodes each of `upstream`'s values with `encoder`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are encoded.
        ///   - encoder: the encoder, used for every value of every subscription.
        @inlinable
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            encode = { try encoder.encode($0) }
        }

        /// Attaches `subscriber` to the upstream through an `"Encode"` subscription.
        ///
        /// - Parameter subscriber: the subscriber to attach.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingStepSubscription(
                    downstream: subscriber,
                    step: CodingStep<Encoding, Upstream.Output, Output, Upstream.Failure>(encode)
                )
            )
        }
    }
}

extension Publisher where Output: Encodable {
    /// Encodes every value with `encoder`.
    ///
    /// ```swift
    /// readings.encode(encoder: JSONEncoder())   // import RippleFoundation for JSONEncoder's conformance
    /// ```
    ///
    /// - Parameter encoder: the encoder, such as `JSONEncoder`.
    /// - Returns: a publisher of the encoded values; it fails with the encoder's error (cancelling the
    ///   upstream) or the upstream's, as `any Error`.
    @inlinable
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}
