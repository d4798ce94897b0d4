extension Publishers {
    /// A publisher that decodes every upstream value into `Output` with a ``TopLevelDecoder``.
    ///
    /// A decoding error cancels the upstream and fails the stream with that error; an upstream failure is
    /// forwarded as `any Error`. It provides its own subscription (`"Decode"`) and passes demand through.
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
    where Upstream.Output == Coder.Input {
        /// Fails with the upstream's error or the decoder's.
        public typealias Failure = any Error

        /// The publisher whose values are decoded.
        public let upstream: Upstream

        /// The decoder's `decode` for `Output`, kept as a closure as Combine keeps it (the decoder is not
        /// exposed).
        @usableFromInline let decode: (Upstream.Output) throws -> Output

        /// Creates a publisher that decodes each of `upstream`'s values with `decoder`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are decoded.
        ///   - decoder: the decoder, used for every value of every subscription.
        @inlinable
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            decode = { try decoder.decode(Output.self, from: $0) }
        }

        /// Attaches `subscriber` to the upstream through a `"Decode"` subscription.
        ///
        /// - Parameter subscriber: the subscriber to attach.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingStepSubscription(
                    downstream: subscriber,
                    step: CodingStep<Decoding, Upstream.Output, Output, Upstream.Failure>(decode)
                )
            )
        }
    }
}

extension Publisher {
    /// Decodes every value into `type` with `decoder`.
    ///
    /// ```swift
    /// payloads.decode(type: Reading.self, decoder: JSONDecoder())   // import RippleFoundation for JSONDecoder
    /// ```
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder, such as `JSONDecoder`; its input type is this publisher's output.
    /// - Returns: a publisher of the decoded values; it fails with the decoder's error (cancelling the
    ///   upstream) or the upstream's, as `any Error`.
    @inlinable
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(
        type: Item.Type,
        decoder: Coder
    ) -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}
