// Combine's specialisations of operators on `Just`: the one value is already at hand, so each operator
// applies its closure to it at once and returns a publisher of the outcome (another `Just`, an
// `Optional.Publisher` when the value may be dropped, a `Result.Publisher` when the closure may throw or the
// failure type changes, `Empty`, or a `Publishers.Sequence`) instead of subscribing an operator to it. They are
// chosen over the general `Publisher` operators because they are declared on the concrete type, exactly as in
// Combine, so `Just(3).map { $0 * 2 }` has Combine's type `Just<Int>`.
//
// Closures run when the operator is applied, not on subscription (as in Combine).

extension Just where Output: Comparable {
    /// The smallest value: the one value.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func min() -> Just<Output> {
        self
    }

    /// The largest value: the one value.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func max() -> Just<Output> {
        self
    }
}

extension Just where Output: Equatable {
    /// Whether the value equals `output`, decided at once.
    ///
    /// - Parameter output: the value to look for.
    /// - Returns: a `Just` of the answer.
    @inlinable
    public func contains(_ output: Output) -> Just<Bool> {
        Just<Bool>(self.output == output)
    }

    /// The value without consecutive repeats: the one value.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func removeDuplicates() -> Just<Output> {
        self
    }
}

extension Just {
    /// Whether the value satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a `Just` of the answer.
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }

    /// Whether the value satisfies a throwing `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or of the error `predicate` threw.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try predicate(output) })
    }

    /// Whether the value satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a `Just` of the answer.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }

    /// Whether the value satisfies a throwing `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or of the error `predicate` threw.
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try predicate(output) })
    }

    /// The value in a one-element array.
    ///
    /// - Returns: a `Just` of `[output]`.
    @inlinable
    public func collect() -> Just<[Output]> {
        Just<[Output]>([output])
    }

    /// The smallest value by `areInIncreasingOrder`: the one value (the closure is not called).
    ///
    /// - Parameter areInIncreasingOrder: the ordering (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// The largest value by `areInIncreasingOrder`: the one value (the closure is not called).
    ///
    /// - Parameter areInIncreasingOrder: the ordering (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// The number of values: one.
    ///
    /// - Returns: a `Just` of `1`.
    @inlinable
    public func count() -> Just<Int> {
        Just<Int>(1)
    }

    /// The value if `count` is zero, nothing otherwise.
    ///
    /// - Parameter count: how many values to drop; a negative count traps, as in Combine.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "count must not be negative")
        return Optional.Publisher(count > 0 ? nil : output)
    }

    /// The value unless it satisfies `predicate`.
    ///
    /// - Parameter predicate: whether to drop the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? nil : output)
    }

    /// The first value: the one value.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func first() -> Just<Output> {
        self
    }

    /// The value if it satisfies `predicate`.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? output : nil)
    }

    /// The last value: the one value.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func last() -> Just<Output> {
        self
    }

    /// The value if it satisfies `predicate`.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? output : nil)
    }

    /// The value if it satisfies `isIncluded`.
    ///
    /// - Parameter isIncluded: whether to keep the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(isIncluded(output) ? output : nil)
    }

    /// No value at all.
    ///
    /// - Returns: an `Empty` publisher that finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Output, Never> {
        Empty()
    }

    /// `transform` applied to the value, computed at once.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a `Just` of the result.
    @inlinable
    public func map<ElementOfResult>(_ transform: (Output) -> ElementOfResult) -> Just<ElementOfResult> {
        Just<ElementOfResult>(transform(output))
    }

    /// A throwing `transform` applied to the value, computed at once.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a publisher of the result, or of the error `transform` threw.
    @inlinable
    public func tryMap<ElementOfResult>(
        _ transform: (Output) throws -> ElementOfResult
    ) -> Result<ElementOfResult, any Error>.Publisher {
        Result.Publisher(Result { try transform(output) })
    }

    /// `transform` applied to the value, kept unless it is `nil`.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a publisher of the non-`nil` result, or an empty one.
    @inlinable
    public func compactMap<ElementOfResult>(
        _ transform: (Output) -> ElementOfResult?
    ) -> Optional<ElementOfResult>.Publisher {
        Optional.Publisher(transform(output))
    }

    /// The value at position `index`: the value for 0, nothing otherwise.
    ///
    /// - Parameter index: the position; a negative index traps, as in Combine.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "index must not be negative")
        return Optional.Publisher(index == 0 ? output : nil)
    }

    /// The value if `range` starts at position 0, nothing otherwise.
    ///
    /// As in Combine, the value is kept for any range that starts at 0, even an empty one (`0..<0`).
    ///
    /// - Parameter range: the positions to keep.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let positions = range.relative(to: 0..<Int.max)
        return Optional.Publisher(positions.lowerBound == 0 ? output : nil)
    }

    /// The value if `maxLength` is at least 1, nothing otherwise.
    ///
    /// - Parameter maxLength: how many values to keep; a negative length traps, as in Combine.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Optional.Publisher(maxLength > 0 ? output : nil)
    }

    /// The value if it satisfies `predicate`.
    ///
    /// - Parameter predicate: whether to keep the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? output : nil)
    }

    /// The same value, with the failure type changed to `Failure` (the publisher still never fails).
    ///
    /// - Parameter failureType: the new failure type.
    /// - Returns: a publisher of the value.
    @inlinable
    public func setFailureType<Failure: Error>(to failureType: Failure.Type) -> Result<Output, Failure>.Publisher {
        Result<Output, Failure>.Publisher(output)
    }

    /// The same value, with the failure type changed to the result type of `transform` (never called:
    /// `Just` does not fail).
    ///
    /// - Parameter transform: the error conversion.
    /// - Returns: a publisher of the value.
    @inlinable
    public func mapError<Failure: Error>(_ transform: (Never) -> Failure) -> Result<Output, Failure>.Publisher {
        Result<Output, Failure>.Publisher(output)
    }

    /// The value without consecutive repeats by `predicate`: the one value (the closure is not called).
    ///
    /// - Parameter predicate: whether two values are repeats (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// The value without consecutive repeats by a throwing `predicate`, which is called once, with the value
    /// as both arguments, as in Combine.
    ///
    /// - Parameter predicate: whether two values are repeats; only its error matters here.
    /// - Returns: a publisher of the value, or of the error `predicate` threw.
    @inlinable
    public func tryRemoveDuplicates(
        by predicate: (Output, Output) throws -> Bool
    ) -> Result<Output, any Error>.Publisher {
        Result.Publisher(Result<Output, Never>.success(output).tryingPair(predicate))
    }

    /// The value, as `Just` never fails.
    ///
    /// - Parameter output: the replacement for an error (unused).
    /// - Returns: this publisher.
    @inlinable
    public func replaceError(with output: Output) -> Just<Output> {
        self
    }

    /// The value, as `Just` is never empty.
    ///
    /// - Parameter output: the replacement for an empty stream (unused).
    /// - Returns: this publisher.
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> {
        self
    }

    /// The value, as `Just` never fails.
    ///
    /// - Parameter times: how many times to retry (unused).
    /// - Returns: this publisher.
    @inlinable
    public func retry(_ times: Int) -> Just<Output> {
        self
    }

    /// The value combined with `nextPartialResult`, starting from `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result.
    @inlinable
    public func reduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: (Accumulator, Output) -> Accumulator
    ) -> Result<Accumulator, Never>.Publisher {
        Result.Publisher(nextPartialResult(initialResult, output))
    }

    /// The value combined with a throwing `nextPartialResult`, starting from `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or of the error `nextPartialResult` threw.
    @inlinable
    public func tryReduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: (Accumulator, Output) throws -> Accumulator
    ) -> Result<Accumulator, any Error>.Publisher {
        Result.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// The one running result of combining the value with `nextPartialResult`, starting from
    /// `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result.
    @inlinable
    public func scan<ElementOfResult>(
        _ initialResult: ElementOfResult,
        _ nextPartialResult: (ElementOfResult, Output) -> ElementOfResult
    ) -> Result<ElementOfResult, Never>.Publisher {
        Result.Publisher(nextPartialResult(initialResult, output))
    }

    /// The one running result of combining the value with a throwing `nextPartialResult`, starting from
    /// `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or of the error `nextPartialResult` threw.
    @inlinable
    public func tryScan<ElementOfResult>(
        _ initialResult: ElementOfResult,
        _ nextPartialResult: (ElementOfResult, Output) throws -> ElementOfResult
    ) -> Result<ElementOfResult, any Error>.Publisher {
        Result.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// `elements` followed by the value.
    ///
    /// - Parameter elements: the values to put first.
    /// - Returns: a sequence publisher of all of them.
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
        prepend(elements)
    }

    /// `elements` followed by the value.
    ///
    /// - Parameter elements: the values to put first.
    /// - Returns: a sequence publisher of all of them.
    @inlinable
    public func prepend<Elements: Sequence>(
        _ elements: Elements
    ) -> Publishers.Sequence<[Output], Never> where Elements.Element == Output {
        Publishers.Sequence(sequence: elements + [output])
    }

    /// The value followed by `elements`.
    ///
    /// - Parameter elements: the values to put after it.
    /// - Returns: a sequence publisher of all of them.
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
        append(elements)
    }

    /// The value followed by `elements`.
    ///
    /// - Parameter elements: the values to put after it.
    /// - Returns: a sequence publisher of all of them.
    @inlinable
    public func append<Elements: Sequence>(
        _ elements: Elements
    ) -> Publishers.Sequence<[Output], Never> where Elements.Element == Output {
        Publishers.Sequence(sequence: [output] + elements)
    }
}
