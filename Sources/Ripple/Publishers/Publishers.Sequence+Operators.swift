// Combine's specialisations of operators on `Publishers.Sequence`: the sequence is already at hand, so
// these operators apply the standard library's algorithm to it at once and return a publisher of the
// outcome (a `Result.Publisher`, an `Optional.Publisher`, `Just`, `Empty`, or another
// `Publishers.Sequence`) instead of subscribing an operator to the elements one by one. They are chosen
// over the general `Publisher` operators because their constraints are more specific, exactly as in Combine,
// so `(0..<n).publisher.reduce(0, +)` has Combine's type `Result<Int, Never>.Publisher`.
//
// Closures run when the operator is applied, not on subscription (as in Combine); each operator is
// `@inlinable` so that the work specialises for the concrete sequence in the caller's module.

extension Publishers.Sequence where Failure == Never {
    /// The smallest element by `areInIncreasingOrder`, found at once.
    ///
    /// - Parameter areInIncreasingOrder: Whether its first argument orders before its second.
    /// - Returns: a publisher that emits that element and finishes, or just finishes when the sequence
    ///   is empty.
    @inlinable
    public func min(
        by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
    ) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// The largest element by `areInIncreasingOrder`, found at once.
    ///
    /// - Parameter areInIncreasingOrder: Whether its first argument orders before its second.
    /// - Returns: a publisher that emits that element and finishes, or just finishes when the sequence
    ///   is empty.
    @inlinable
    public func max(
        by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
    ) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.max(by: areInIncreasingOrder))
    }

    /// The first element that satisfies `predicate`, found at once.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits that element and finishes, or just finishes when none does.
    @inlinable
    public func first(
        where predicate: (Elements.Element) -> Bool
    ) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.first(where: predicate))
    }
}

extension Publishers.Sequence {
    /// Whether every element satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits the answer and finishes.
    @inlinable
    public func allSatisfy(_ predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(sequence.allSatisfy(predicate))
    }

    /// Whether every element satisfies a throwing `predicate`, decided at once.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits the answer and finishes, or fails with the error `predicate`
    ///   threw.
    @inlinable
    public func tryAllSatisfy(
        _ predicate: (Elements.Element) throws -> Bool
    ) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try sequence.allSatisfy(predicate) })
    }

    /// All the elements in one array, collected at once.
    ///
    /// - Returns: a publisher that emits that array and finishes.
    @inlinable
    public func collect() -> Result<[Elements.Element], Failure>.Publisher {
        Result.Publisher(Array(sequence))
    }

    /// The non-`nil` results of `transform` applied to each element, computed at once.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: a sequence publisher of those results.
    @inlinable
    public func compactMap<ElementOfResult>(
        _ transform: (Elements.Element) -> ElementOfResult?
    ) -> Publishers.Sequence<[ElementOfResult], Failure> {
        Publishers.Sequence(sequence: sequence.compactMap(transform))
    }

    /// Whether some element satisfies `predicate`, decided at once.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits the answer and finishes.
    @inlinable
    public func contains(where predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(sequence.contains(where: predicate))
    }

    /// Whether some element satisfies a throwing `predicate`, decided at once.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits the answer and finishes, or fails with the error `predicate`
    ///   threw.
    @inlinable
    public func tryContains(
        where predicate: (Elements.Element) throws -> Bool
    ) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try sequence.contains(where: predicate) })
    }

    /// The elements after the leading ones that satisfy `predicate`.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a sequence publisher of the standard library's `DropWhileSequence`.
    @inlinable
    public func drop(
        while predicate: (Elements.Element) -> Bool
    ) -> Publishers.Sequence<DropWhileSequence<Elements>, Failure> {
        Publishers.Sequence(sequence: sequence.drop(while: predicate))
    }

    /// The elements after the first `count`.
    ///
    /// - Parameter count: How many elements to skip.
    /// - Returns: a sequence publisher of the standard library's `DropFirstSequence`.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        Publishers.Sequence(sequence: sequence.dropFirst(count))
    }

    /// The elements that satisfy `isIncluded`, selected at once.
    ///
    /// - Parameter isIncluded: The predicate fused after this one.
    /// - Returns: a sequence publisher of those elements.
    @inlinable
    public func filter(
        _ isIncluded: (Elements.Element) -> Bool
    ) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence(sequence: sequence.filter(isIncluded))
    }

    /// No element at all.
    ///
    /// - Returns: an `Empty` publisher that finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Elements.Element, Failure> {
        Empty()
    }

    /// `transform` applied to each element, computed at once.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: a sequence publisher of the results.
    @inlinable
    public func map<ElementOfResult>(
        _ transform: (Elements.Element) -> ElementOfResult
    ) -> Publishers.Sequence<[ElementOfResult], Failure> {
        Publishers.Sequence(sequence: sequence.map(transform))
    }

    /// At most the first `maxLength` elements.
    ///
    /// - Parameter maxLength: The most values to republish; not negative.
    /// - Returns: a sequence publisher of the standard library's `PrefixSequence`.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        Publishers.Sequence(sequence: sequence.prefix(maxLength))
    }

    /// The leading elements that satisfy `predicate`, selected at once.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a sequence publisher of those elements.
    @inlinable
    public func prefix(
        while predicate: (Elements.Element) -> Bool
    ) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence(sequence: sequence.prefix(while: predicate))
    }

    /// The elements combined with `nextPartialResult`, starting from `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result.
    /// - Returns: a publisher that emits the final result and finishes.
    @inlinable
    public func reduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: @escaping (Accumulator, Elements.Element) -> Accumulator
    ) -> Result<Accumulator, Failure>.Publisher {
        Result.Publisher(sequence.reduce(initialResult, nextPartialResult))
    }

    /// The elements combined with a throwing `nextPartialResult`, starting from `initialResult`,
    /// computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result; it may throw.
    /// - Returns: a publisher that emits the final result and finishes, or fails with the error
    ///   `nextPartialResult` threw.
    @inlinable
    public func tryReduce<Accumulator>(
        _ initialResult: Accumulator,
        _ nextPartialResult: @escaping (Accumulator, Elements.Element) throws -> Accumulator
    ) -> Result<Accumulator, any Error>.Publisher {
        Result.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }

    /// The elements with every `nil` replaced by `output`, computed at once.
    ///
    /// - Parameter output: The value that replaces each `nil`.
    /// - Returns: a sequence publisher of the elements, still of the optional type (as in Combine).
    @inlinable
    public func replaceNil<ElementOfResult>(
        with output: ElementOfResult
    ) -> Publishers.Sequence<[Elements.Element], Failure> where Elements.Element == ElementOfResult? {
        Publishers.Sequence(sequence: sequence.map { $0 ?? output })
    }

    /// Every intermediate result of combining the elements with `nextPartialResult`, starting from
    /// `initialResult`, computed at once.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result.
    /// - Returns: a sequence publisher of the running results, one per element.
    @inlinable
    public func scan<ElementOfResult>(
        _ initialResult: ElementOfResult,
        _ nextPartialResult: @escaping (ElementOfResult, Elements.Element) -> ElementOfResult
    ) -> Publishers.Sequence<[ElementOfResult], Failure> {
        var accumulator = initialResult
        return Publishers.Sequence(
            sequence: sequence.map { element in
                accumulator = nextPartialResult(accumulator, element)
                return accumulator
            })
    }

    /// The same elements, with the failure type changed to `NewFailure` (the publisher still never
    /// fails).
    ///
    /// - Parameter failureType: The failure type to present.
    /// - Returns: a sequence publisher of the same sequence.
    @inlinable
    public func setFailureType<NewFailure: Error>(
        to failureType: NewFailure.Type
    ) -> Publishers.Sequence<Elements, NewFailure> {
        Publishers.Sequence<Elements, NewFailure>(sequence: sequence)
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// The elements without consecutive repeats, computed at once.
    ///
    /// - Returns: a sequence publisher of the elements that differ from the one before.
    @inlinable
    public func removeDuplicates() -> Publishers.Sequence<[Elements.Element], Failure> {
        var kept: [Elements.Element] = []
        kept.reserveCapacity(sequence.underestimatedCount)
        for element in sequence where kept.last != element {
            kept.append(element)
        }
        return Publishers.Sequence(sequence: kept)
    }

    /// Whether the sequence contains `output`, decided at once.
    ///
    /// - Parameter output: The value to look for.
    /// - Returns: a publisher that emits the answer and finishes.
    @inlinable
    public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(sequence.contains(output))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// The smallest element, found at once.
    ///
    /// - Returns: a publisher that emits it and finishes, or just finishes when the sequence is empty.
    @inlinable
    public func min() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.min())
    }

    /// The largest element, found at once.
    ///
    /// - Returns: a publisher that emits it and finishes, or just finishes when the sequence is empty.
    @inlinable
    public func max() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.max())
    }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// The first element.
    ///
    /// - Returns: a publisher that emits it and finishes, or just finishes when the collection is empty.
    @inlinable
    public func first() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.first)
    }

    /// The element at `index`.
    ///
    /// - Parameter index: The position of the value, counting from 0.
    /// - Returns: a publisher that emits it and finishes, or just finishes when `index` is not a valid
    ///   index of the collection.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// The number of elements.
    ///
    /// - Returns: a publisher that emits the count and finishes.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result.Publisher(sequence.count)
    }

    /// The elements at the indices in `range` (which must be valid for the collection).
    ///
    /// - Parameter range: The positions of the values, counting from 0.
    /// - Returns: a sequence publisher of those elements.
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// The last element.
    ///
    /// - Returns: a publisher that emits it and finishes, or just finishes when the collection is empty.
    @inlinable
    public func last() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.last)
    }

    /// The last element that satisfies `predicate`, found at once.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits it and finishes, or just finishes when none does.
    @inlinable
    public func last(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.last(where: predicate))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// The element at `index`.
    ///
    /// - Parameter index: The position of the value, counting from 0.
    /// - Returns: a publisher that emits it and finishes, or just finishes when `index` is not a valid
    ///   index of the collection.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }

    /// The number of elements.
    ///
    /// - Returns: a `Just` of the count.
    @inlinable
    public func count() -> Just<Int> {
        Just(sequence.count)
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// The elements at the indices in `range` (which must be valid for the collection).
    ///
    /// - Parameter range: The positions of the values, counting from 0.
    /// - Returns: a sequence publisher of those elements.
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence(sequence: Array(sequence[range]))
    }

    /// The number of elements.
    ///
    /// - Returns: a publisher that emits the count and finishes.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result.Publisher(sequence.count)
    }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// `elements` followed by this sequence's elements, joined at once.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a sequence publisher of the joined collection.
    @inlinable
    public func prepend(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
        prepend(elements)
    }

    /// `elements` followed by this sequence's elements, joined at once.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a sequence publisher of the joined collection.
    @inlinable
    public func prepend<OtherSequence: Swift.Sequence>(
        _ elements: OtherSequence
    ) -> Publishers.Sequence<Elements, Failure> where OtherSequence.Element == Elements.Element {
        var joined = Elements()
        joined.reserveCapacity(sequence.count + elements.underestimatedCount)
        joined.append(contentsOf: elements)
        joined.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: joined)
    }

    /// `publisher`'s elements followed by this sequence's elements, joined at once.
    ///
    /// - Parameter publisher: The publisher whose elements come first.
    /// - Returns: a sequence publisher of the joined collection.
    @inlinable
    public func prepend(
        _ publisher: Publishers.Sequence<Elements, Failure>
    ) -> Publishers.Sequence<Elements, Failure> {
        var joined = publisher.sequence
        joined.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: joined)
    }

    /// This sequence's elements followed by `elements`, joined at once.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a sequence publisher of the joined collection.
    @inlinable
    public func append(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
        append(elements)
    }

    /// This sequence's elements followed by `elements`, joined at once.
    ///
    /// - Parameter elements: The values to emit, in order.
    /// - Returns: a sequence publisher of the joined collection.
    @inlinable
    public func append<OtherSequence: Swift.Sequence>(
        _ elements: OtherSequence
    ) -> Publishers.Sequence<Elements, Failure> where OtherSequence.Element == Elements.Element {
        var joined = sequence
        joined.append(contentsOf: elements)
        return Publishers.Sequence(sequence: joined)
    }

    /// This sequence's elements followed by `publisher`'s, joined at once.
    ///
    /// - Parameter publisher: The publisher whose elements follow this sequence's.
    /// - Returns: a sequence publisher of the joined collection.
    @inlinable
    public func append(
        _ publisher: Publishers.Sequence<Elements, Failure>
    ) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}
