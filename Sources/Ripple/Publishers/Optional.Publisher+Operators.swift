// Combine's specialisations of operators on `Optional.Publisher`: the value (or its absence) is already at
// hand, so each operator applies its closure at once and returns another `Optional.Publisher` (or `Just`,
// or `Empty`) instead of subscribing an operator. They are chosen over the general `Publisher` operators
// because they are declared on the concrete type, exactly as in Combine, so `Optional(3).publisher.map { $0 }`
// has Combine's type `Optional<Int>.Publisher`. With no value, every closure is skipped and the result is
// empty too (except `replaceEmpty`).
//
// Closures run when the operator is applied, not on subscription (as in Combine).

extension Optional.Publisher where Wrapped: Equatable {
    /// Whether the value equals `output`, decided at once.
    ///
    /// - Parameter output: the value to look for.
    /// - Returns: a publisher of the answer, or an empty one when there is no value.
    @inlinable
    public func contains(_ output: Output) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }

    /// The value without consecutive repeats: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func removeDuplicates() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// The smallest value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func min() -> Optional<Wrapped>.Publisher {
        self
    }

    /// The largest value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func max() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher {
    /// Whether the value satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or an empty one when there is no value.
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// The value in a one-element array, or an empty array when there is none.
    ///
    /// - Returns: a publisher of the array (never empty itself).
    @inlinable
    public func collect() -> Optional<[Output]>.Publisher {
        Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
    }

    /// `transform` applied to the value, kept unless it is `nil`.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a publisher of the non-`nil` result, or an empty one.
    @inlinable
    public func compactMap<ElementOfResult>(
        _ transform: (Output) -> ElementOfResult?
    ) -> Optional<ElementOfResult>.Publisher {
        Optional<ElementOfResult>.Publisher(output.flatMap(transform))
    }

    /// The smallest value by `areInIncreasingOrder`: the value itself (the closure is not called).
    ///
    /// - Parameter areInIncreasingOrder: the ordering (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// The largest value by `areInIncreasingOrder`: the value itself (the closure is not called).
    ///
    /// - Parameter areInIncreasingOrder: the ordering (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// Whether the value satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or an empty one when there is no value.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// The number of values: 1, or nothing when there is no value (as in Combine, not 0).
    ///
    /// - Returns: a publisher of `1`, or an empty one.
    @inlinable
    public func count() -> Optional<Int>.Publisher {
        Optional<Int>.Publisher(output.map { _ in 1 })
    }

    /// The value if `count` is zero, nothing otherwise.
    ///
    /// - Parameter count: how many values to drop; a negative count traps, as in Combine.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "count must not be negative")
        return Optional<Output>.Publisher(count == 0 ? output : nil)
    }

    /// The value unless it satisfies `predicate`.
    ///
    /// - Parameter predicate: whether to drop the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }

    /// The first value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func first() -> Optional<Output>.Publisher {
        self
    }

    /// The value if it satisfies `predicate`.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// The last value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func last() -> Optional<Output>.Publisher {
        self
    }

    /// The value if it satisfies `predicate`.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// The value if it satisfies `isIncluded`.
    ///
    /// - Parameter isIncluded: whether to keep the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }

    /// No value at all.
    ///
    /// - Returns: an `Empty` publisher that finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }

    /// `transform` applied to the value, computed at once.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a publisher of the result, or an empty one when there is no value.
    @inlinable
    public func map<ElementOfResult>(_ transform: (Output) -> ElementOfResult) -> Optional<ElementOfResult>.Publisher {
        Optional<ElementOfResult>.Publisher(output.map(transform))
    }

    /// The value at position `index`: the value for 0, nothing otherwise.
    ///
    /// - Parameter index: the position; a negative index traps, as in Combine.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "index must not be negative")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// The value if `range` contains position 0, nothing otherwise.
    ///
    /// As in Combine, a negative lower bound traps, and so does an upper bound of `Int.max - 1` or more
    /// (which a range open at the top, such as `0...`, has).
    ///
    /// - Parameter range: the positions to keep.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let positions = range.relative(to: 0..<Int.max)
        precondition(positions.lowerBound >= 0, "lowerBound must not be negative")
        precondition(positions.upperBound < .max - 1, "upperBound must be less than Int.max - 1")
        let keeps = positions.lowerBound == 0 && positions.upperBound != 0
        return Optional<Output>.Publisher(keeps ? output : nil)
    }

    /// The value if `maxLength` is at least 1, nothing otherwise.
    ///
    /// - Parameter maxLength: how many values to keep; a negative length traps, as in Combine.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// The value if it satisfies `predicate`.
    ///
    /// - Parameter predicate: whether to keep the value.
    /// - Returns: a publisher of the value, or an empty one.
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// The value combined with `nextPartialResult`, starting from `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or an empty one when there is no value (as in Combine, not
    ///   `initialResult`).
    @inlinable
    public func reduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: (Accumulator, Output) -> Accumulator
    ) -> Optional<Accumulator>.Publisher {
        Optional<Accumulator>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// The one running result of combining the value with `nextPartialResult`, starting from
    /// `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or an empty one when there is no value.
    @inlinable
    public func scan<ElementOfResult>(
        _ initialResult: ElementOfResult,
        _ nextPartialResult: (ElementOfResult, Output) -> ElementOfResult
    ) -> Optional<ElementOfResult>.Publisher {
        Optional<ElementOfResult>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// The value without consecutive repeats by `predicate`: the value itself (the closure is not called).
    ///
    /// - Parameter predicate: whether two values are repeats (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// The value, as an `Optional.Publisher` never fails.
    ///
    /// - Parameter output: the replacement for an error (unused).
    /// - Returns: this publisher.
    @inlinable
    public func replaceError(with output: Output) -> Optional<Output>.Publisher {
        self
    }

    /// The value, or `output` when there is none.
    ///
    /// - Parameter output: the replacement for the missing value.
    /// - Returns: a `Just` of the value or of `output`.
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> {
        Just(self.output ?? output)
    }

    /// The value, as an `Optional.Publisher` never fails.
    ///
    /// - Parameter times: how many times to retry (unused).
    /// - Returns: this publisher.
    @inlinable
    public func retry(_ times: Int) -> Optional<Output>.Publisher {
        self
    }
}
