// The forms of `combineLatest` and `zip` that transform each combined tuple, as Combine declares them:
// each returns `Publishers.Map` over the joining publisher.

extension Publisher {
    /// Combines this publisher with `other` like ``combineLatest(_:)`` and publishes
    /// `transform(latestOfSelf, latestOfOther)` instead of the tuple.
    ///
    /// - Parameters:
    ///   - other: The publisher to join with this one.
    ///   - transform: Makes one value of the latest value of each publisher.
    /// - Returns: a publisher that emits the transformed latest values whenever either upstream publishes
    ///   (once both have), finishes once both have finished and fails with the first failure.
    public func combineLatest<P: Publisher, T>(
        _ other: P,
        _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T> where Failure == P.Failure {
        Publishers.Map(upstream: combineLatest(other), transform: transform)
    }

    /// Combines this publisher with two others like `combineLatest(_:_:)` and publishes `transform`
    /// of the three latest values instead of the tuple.
    ///
    /// - Parameters:
    ///   - publisher1: The second publisher (this one is the first).
    ///   - publisher2: The third publisher (this one is the first).
    ///   - transform: Makes one value of the latest value of each publisher.
    /// - Returns: a publisher that emits the transformed latest values whenever any upstream publishes
    ///   (once all have), finishes once all have finished and fails with the first failure.
    public func combineLatest<P: Publisher, Q: Publisher, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
    where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Map(upstream: combineLatest(publisher1, publisher2), transform: transform)
    }

    /// Combines this publisher with three others like `combineLatest(_:_:_:)` and publishes `transform`
    /// of the four latest values instead of the tuple.
    ///
    /// - Parameters:
    ///   - publisher1: The second publisher (this one is the first).
    ///   - publisher2: The third publisher (this one is the first).
    ///   - publisher3: The fourth publisher (this one is the first).
    ///   - transform: Makes one value of the latest value of each publisher.
    /// - Returns: a publisher that emits the transformed latest values whenever any upstream publishes
    ///   (once all have), finishes once all have finished and fails with the first failure.
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ publisher3: R,
        _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.Map(upstream: combineLatest(publisher1, publisher2, publisher3), transform: transform)
    }

    /// Pairs this publisher's values with `other`'s like ``zip(_:)`` and publishes
    /// `transform(valueOfSelf, valueOfOther)` instead of the tuple.
    ///
    /// - Parameters:
    ///   - other: The publisher to join with this one.
    ///   - transform: Makes one value of each group of values.
    /// - Returns: a publisher that emits one transformed value per complete pair, finishes when an
    ///   upstream has finished with no value left to pair, and fails with the first failure.
    public func zip<P: Publisher, T>(
        _ other: P,
        _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.Zip<Self, P>, T> where Failure == P.Failure {
        Publishers.Map(upstream: zip(other), transform: transform)
    }

    /// Groups this publisher's values with two others' like `zip(_:_:)` and publishes `transform` of
    /// each group instead of the tuple.
    ///
    /// - Parameters:
    ///   - publisher1: The second publisher (this one is the first).
    ///   - publisher2: The third publisher (this one is the first).
    ///   - transform: Makes one value of each group of values.
    /// - Returns: a publisher that emits one transformed value per complete group, finishes when an
    ///   upstream has finished with no value left to group, and fails with the first failure.
    public func zip<P: Publisher, Q: Publisher, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T> where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Map(upstream: zip(publisher1, publisher2), transform: transform)
    }

    /// Groups this publisher's values with three others' like `zip(_:_:_:)` and publishes `transform`
    /// of each group instead of the tuple.
    ///
    /// - Parameters:
    ///   - publisher1: The second publisher (this one is the first).
    ///   - publisher2: The third publisher (this one is the first).
    ///   - publisher3: The fourth publisher (this one is the first).
    ///   - transform: Makes one value of each group of values.
    /// - Returns: a publisher that emits one transformed value per complete group, finishes when an
    ///   upstream has finished with no value left to group, and fails with the first failure.
    public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(
        _ publisher1: P,
        _ publisher2: Q,
        _ publisher3: R,
        _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.Map(upstream: zip(publisher1, publisher2, publisher3), transform: transform)
    }
}
