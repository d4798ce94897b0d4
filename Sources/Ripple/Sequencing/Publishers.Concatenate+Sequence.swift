extension Publisher {
    /// Emits the given values before this publisher's values.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a publisher that emits `elements`, then every value of this publisher; it completes as
    ///   this publisher does.
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        prepend(elements)
    }

    /// Emits the elements of `elements` before this publisher's values.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a publisher that emits the elements, then every value of this publisher; it completes as
    ///   this publisher does.
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
    where Output == S.Element {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Emits the given values after this publisher finishes.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a publisher that emits every value of this publisher, then `elements` once it finishes;
    ///   it fails if this publisher fails.
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        append(elements)
    }

    /// Emits the elements of `elements` after this publisher finishes.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a publisher that emits every value of this publisher, then the elements once it
    ///   finishes; it fails if this publisher fails.
    public func append<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
    where Output == S.Element {
        append(Publishers.Sequence(sequence: elements))
    }
}
