// Combine's specialisations of operators on `Result.Publisher`: the result is already at hand, so each
// operator applies its closure to the success value at once and returns another `Result.Publisher` (or
// `Empty`) instead of subscribing an operator. They are chosen over the general `Publisher` operators because
// they are declared on the concrete type, exactly as in Combine, so `Result<Int, E>.Publisher(3).map { $0 }`
// has Combine's type `Result<Int, E>.Publisher`. A failure passes through every operator unchanged (the
// `try` forms turn its type into `any Error`), and no closure is called for it.
//
// Closures run when the operator is applied, not on subscription (as in Combine).

extension Result.Publisher where Output: Equatable {
    /// Whether the value equals `output`, decided at once.
    ///
    /// - Parameter output: the value to look for.
    /// - Returns: a publisher of the answer, or of the failure.
    @inlinable
    public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }

    /// The value without consecutive repeats: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func removeDuplicates() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher where Output: Comparable {
    /// The smallest value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func min() -> Result<Output, Failure>.Publisher {
        self
    }

    /// The largest value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func max() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher {
    /// Whether the value satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or of the failure.
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Whether the value satisfies a throwing `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or of the failure or the error `predicate` threw.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(result.trying(predicate))
    }

    /// Whether the value satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or of the failure.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Whether the value satisfies a throwing `predicate`, decided at once.
    ///
    /// - Parameter predicate: the test applied to the value.
    /// - Returns: a publisher of the answer, or of the failure or the error `predicate` threw.
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(result.trying(predicate))
    }

    /// The value in a one-element array.
    ///
    /// - Returns: a publisher of `[value]`, or of the failure.
    @inlinable
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(result.map { [$0] })
    }

    /// The smallest value by `areInIncreasingOrder`: the value itself (the closure is not called).
    ///
    /// - Parameter areInIncreasingOrder: the ordering (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The smallest value by a throwing `areInIncreasingOrder`, which is called once, with the value as
    /// both arguments, as in Combine.
    ///
    /// - Parameter areInIncreasingOrder: the ordering; only its error matters here.
    /// - Returns: a publisher of the value, or of the failure or the error the closure threw.
    @inlinable
    public func tryMin(
        by areInIncreasingOrder: (Output, Output) throws -> Bool
    ) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(result.tryingPair(areInIncreasingOrder))
    }

    /// The largest value by `areInIncreasingOrder`: the value itself (the closure is not called).
    ///
    /// - Parameter areInIncreasingOrder: the ordering (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The largest value by a throwing `areInIncreasingOrder`, which is called once, with the value as
    /// both arguments, as in Combine.
    ///
    /// - Parameter areInIncreasingOrder: the ordering; only its error matters here.
    /// - Returns: a publisher of the value, or of the failure or the error the closure threw.
    @inlinable
    public func tryMax(
        by areInIncreasingOrder: (Output, Output) throws -> Bool
    ) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(result.tryingPair(areInIncreasingOrder))
    }

    /// The number of values: 1.
    ///
    /// - Returns: a publisher of `1`, or of the failure.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(result.map { _ in 1 })
    }

    /// The first value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func first() -> Result<Output, Failure>.Publisher {
        self
    }

    /// The last value: the value itself.
    ///
    /// - Returns: this publisher.
    @inlinable
    public func last() -> Result<Output, Failure>.Publisher {
        self
    }

    /// No value at all: the failure, if any, is still delivered.
    ///
    /// - Returns: an `Empty` publisher that finishes at once (as in Combine, also for a failure).
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }

    /// `transform` applied to the value, computed at once.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a publisher of the result, or of the failure.
    @inlinable
    public func map<ElementOfResult>(
        _ transform: (Output) -> ElementOfResult
    ) -> Result<ElementOfResult, Failure>.Publisher {
        Result<ElementOfResult, Failure>.Publisher(result.map(transform))
    }

    /// A throwing `transform` applied to the value, computed at once.
    ///
    /// - Parameter transform: the transformation.
    /// - Returns: a publisher of the result, or of the failure or the error `transform` threw.
    @inlinable
    public func tryMap<ElementOfResult>(
        _ transform: (Output) throws -> ElementOfResult
    ) -> Result<ElementOfResult, any Error>.Publisher {
        Result<ElementOfResult, any Error>.Publisher(result.trying(transform))
    }

    /// The failure converted by `transform`, computed at once.
    ///
    /// - Parameter transform: the error conversion, called only for a failure.
    /// - Returns: a publisher of the value, or of the converted failure.
    @inlinable
    public func mapError<TransformedFailure: Error>(
        _ transform: (Failure) -> TransformedFailure
    ) -> Result<Output, TransformedFailure>.Publisher {
        Result<Output, TransformedFailure>.Publisher(result.mapError(transform))
    }

    /// The value without consecutive repeats by `predicate`: the value itself (the closure is not called).
    ///
    /// - Parameter predicate: whether two values are repeats (unused: there is nothing to compare).
    /// - Returns: this publisher.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The value without consecutive repeats by a throwing `predicate`, which is called once, with the value
    /// as both arguments, as in Combine.
    ///
    /// - Parameter predicate: whether two values are repeats; only its error matters here.
    /// - Returns: a publisher of the value, or of the failure or the error `predicate` threw.
    @inlinable
    public func tryRemoveDuplicates(
        by predicate: (Output, Output) throws -> Bool
    ) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(result.tryingPair(predicate))
    }

    /// The value, or `output` in place of the failure.
    ///
    /// - Parameter output: the replacement for the failure.
    /// - Returns: a publisher that never fails.
    @inlinable
    public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value): Result<Output, Never>.Publisher(value)
        case .failure: Result<Output, Never>.Publisher(output)
        }
    }

    /// The result unchanged, as a `Result.Publisher` is never empty.
    ///
    /// - Parameter output: the replacement for an empty stream (unused).
    /// - Returns: this publisher.
    @inlinable
    public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The result unchanged: as in Combine, retrying a result gives the same result.
    ///
    /// - Parameter times: how many times to retry (unused).
    /// - Returns: this publisher.
    @inlinable
    public func retry(_ times: Int) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The value combined with `nextPartialResult`, starting from `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or of the failure.
    @inlinable
    public func reduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: (Accumulator, Output) -> Accumulator
    ) -> Result<Accumulator, Failure>.Publisher {
        Result<Accumulator, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// The value combined with a throwing `nextPartialResult`, starting from `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or of the failure or the error `nextPartialResult` threw.
    @inlinable
    public func tryReduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: (Accumulator, Output) throws -> Accumulator
    ) -> Result<Accumulator, any Error>.Publisher {
        Result<Accumulator, any Error>.Publisher(result.trying { try nextPartialResult(initialResult, $0) })
    }

    /// The one running result of combining the value with `nextPartialResult`, starting from
    /// `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or of the failure.
    @inlinable
    public func scan<ElementOfResult>(
        _ initialResult: ElementOfResult,
        _ nextPartialResult: (ElementOfResult, Output) -> ElementOfResult
    ) -> Result<ElementOfResult, Failure>.Publisher {
        Result<ElementOfResult, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// The one running result of combining the value with a throwing `nextPartialResult`, starting from
    /// `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: the starting accumulator.
    ///   - nextPartialResult: combines the accumulator and the value.
    /// - Returns: a publisher of the result, or of the failure or the error `nextPartialResult` threw.
    @inlinable
    public func tryScan<ElementOfResult>(
        _ initialResult: ElementOfResult,
        _ nextPartialResult: (ElementOfResult, Output) throws -> ElementOfResult
    ) -> Result<ElementOfResult, any Error>.Publisher {
        Result<ElementOfResult, any Error>.Publisher(result.trying { try nextPartialResult(initialResult, $0) })
    }
}

extension Result.Publisher where Failure == Never {
    /// The same value, with the failure type changed to `NewFailure` (the publisher still never fails).
    ///
    /// - Parameter failureType: the new failure type.
    /// - Returns: a publisher of the value.
    @inlinable
    public func setFailureType<NewFailure: Error>(
        to failureType: NewFailure.Type
    ) -> Result<Output, NewFailure>.Publisher {
        switch result {
        case .success(let value): Result<Output, NewFailure>.Publisher(value)
        }
    }
}

extension Result {
    /// The success value transformed by a throwing `transform`; a failure, or the error `transform` throws,
    /// becomes `any Error`.
    @inlinable
    internal func trying<NewSuccess>(
        _ transform: (Success) throws -> NewSuccess
    ) -> Result<NewSuccess, any Error> {
        switch self {
        case .success(let value): Result<NewSuccess, any Error> { try transform(value) }
        case .failure(let error): .failure(error)
        }
    }

    /// The success value unchanged after a throwing `predicate` has been called with it as both arguments
    /// (as Combine's `try` comparisons of a single value do, so that the closure's error is seen); a failure,
    /// or the error `predicate` throws, becomes `any Error`.
    @inlinable
    internal func tryingPair(_ predicate: (Success, Success) throws -> Bool) -> Result<Success, any Error> {
        trying { value in
            _ = try predicate(value, value)
            return value
        }
    }
}
