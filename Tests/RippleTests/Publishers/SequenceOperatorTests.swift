import Testing

@testable import Ripple

/// Combine's specialisations of operators on `Publishers.Sequence`: computed at once, with Combine's
/// result types (checked by the explicit type annotations, which fail to compile otherwise).
@Suite("Publishers.Sequence operators")
struct SequenceOperatorTests {
    @Test func reduceFoldsAtOnceIntoAResultPublisher() {
        let publisher: Result<Int, Never>.Publisher = (1...4).publisher.reduce(10, +)
        #expect(publisher.result == .success(20))
        #expect(events(of: publisher) == [.subscription("Once"), .value(20), .finished])
    }

    @Test func reduceRunsTheClosureWhenApplied() {
        var calls = 0
        let publisher = [1, 2, 3].publisher.reduce(0) {
            calls += 1
            return $0 + $1
        }
        #expect(calls == 3)
        _ = events(of: publisher)
        _ = events(of: publisher)
        #expect(calls == 3, "subscribing does not fold again")
    }

    @Test func tryReduceFailsWithTheThrownError() {
        let success: Result<Int, any Error>.Publisher = [1, 2].publisher.tryReduce(0, +)
        #expect(outcome(of: success).values == [3])
        #expect(outcome(of: success).finished)
        let failing = [1, 2, 3].publisher.tryReduce(0) { total, next in
            if next == 2 { throw TestError.oops }
            return total + next
        }
        #expect(outcome(of: failing).values == [])
        #expect(outcome(of: failing).error == .oops)
    }

    @Test func countOfARandomAccessCollectionIsJust() {
        let publisher: Just<Int> = (0..<5).publisher.count()
        #expect(events(of: publisher) == [.subscription("Just"), .value(5), .finished])
    }

    @Test func countWithATypedFailureIsAResultPublisher() {
        let publisher: Result<Int, TestError>.Publisher =
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).count()
        #expect(events(of: publisher) == [.subscription("Once"), .value(3), .finished])
        let set: Result<Int, TestError>.Publisher =
            Publishers.Sequence<Set<Int>, TestError>(sequence: [1, 2]).count()
        #expect(set.result == .success(2))
    }

    @Test func minAndMaxAreOptionalPublishers() {
        let min: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
        let max: Optional<Int>.Publisher = [3, 1, 2].publisher.max()
        #expect(events(of: min) == [.subscription("Optional"), .value(1), .finished])
        #expect(events(of: max) == [.subscription("Optional"), .value(3), .finished])
        #expect(events(of: [Int]().publisher.min()) == [.subscription("Empty"), .finished])
        let byLength: Optional<String>.Publisher = ["ccc", "a", "bb"].publisher.min { $0.count < $1.count }
        #expect(byLength.output == "a")
        #expect(["ccc", "a", "bb"].publisher.max { $0.count < $1.count }.output == "ccc")
    }

    @Test func firstAndLastAreOptionalPublishers() {
        let first: Optional<Int>.Publisher = [4, 5, 6].publisher.first()
        let last: Optional<Int>.Publisher = [4, 5, 6].publisher.last()
        #expect(first.output == 4)
        #expect(last.output == 6)
        #expect([4, 5, 6].publisher.first { $0 > 4 }.output == 5)
        #expect([4, 5, 6].publisher.last { $0 < 6 }.output == 5)
        #expect([4, 5, 6].publisher.first { $0 > 9 }.output == nil)
        #expect(events(of: [Int]().publisher.first()) == [.subscription("Empty"), .finished])
    }

    @Test func outputAtAnIndexIsAnOptionalPublisher() {
        let inRange: Optional<Int>.Publisher = [7, 8, 9].publisher.output(at: 1)
        #expect(inRange.output == 8)
        #expect([7, 8, 9].publisher.output(at: 3).output == nil)
        #expect("abc".publisher.output(at: "abc".startIndex).output == "a")
    }

    @Test func outputInARangeIsASequence() {
        let publisher: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.output(in: 1..<3)
        #expect(publisher.sequence == [2, 3])
    }

    @Test func mapFilterAndCompactMapBuildArrays() {
        let mapped: Publishers.Sequence<[String], Never> = (1...3).publisher.map { String($0) }
        #expect(mapped.sequence == ["1", "2", "3"])
        let filtered: Publishers.Sequence<[Int], Never> = (1...6).publisher.filter { $0.isMultiple(of: 2) }
        #expect(events(of: filtered) == [.subscription("[2, 4, 6]"), .value(2), .value(4), .value(6), .finished])
        let compacted: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }
        #expect(compacted.sequence == [1, 3])
    }

    @Test func scanKeepsEveryRunningResult() {
        let publisher: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(10, +)
        #expect(publisher.sequence == [11, 13, 16])
    }

    @Test func removeDuplicatesDropsConsecutiveRepeats() {
        let publisher: Publishers.Sequence<[Int], Never> = [1, 1, 2, 2, 1, 3, 3].publisher.removeDuplicates()
        #expect(publisher.sequence == [1, 2, 1, 3])
        #expect([Int]().publisher.removeDuplicates().sequence == [])
    }

    @Test func replaceNilKeepsTheOptionalElementType() {
        let publisher: Publishers.Sequence<[Int?], Never> = [1, nil, 3].publisher.replaceNil(with: 0)
        #expect(publisher.sequence == [1, 0, 3])
    }

    @Test func dropAndPrefixUseTheStandardLibrarySequences() {
        let dropped: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()
        #expect(Array(dropped.sequence) == [2, 3])
        #expect(Array([1, 2, 3].publisher.dropFirst(2).sequence) == [3])
        let droppedWhile: Publishers.Sequence<DropWhileSequence<[Int]>, Never> =
            [1, 2, 3, 1].publisher.drop { $0 < 2 }
        #expect(Array(droppedWhile.sequence) == [2, 3, 1])
        let prefix: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
        #expect(Array(prefix.sequence) == [1, 2])
        let prefixWhile: Publishers.Sequence<[Int], Never> = [1, 2, 3, 1].publisher.prefix { $0 < 3 }
        #expect(prefixWhile.sequence == [1, 2])
        #expect(
            events(of: [1, 2, 3].publisher.dropFirst()) == [
                .subscription(String(describing: [1, 2, 3].dropFirst() as DropFirstSequence<[Int]>)), .value(2),
                .value(3), .finished,
            ])
    }

    @Test func predicatesAnswerAtOnce() {
        let all: Result<Bool, Never>.Publisher = [2, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }
        #expect(all.result == .success(true))
        let some: Result<Bool, Never>.Publisher = [1, 3].publisher.contains { $0 > 2 }
        #expect(some.result == .success(true))
        let element: Result<Bool, Never>.Publisher = [1, 3].publisher.contains(2)
        #expect(element.result == .success(false))
        #expect(events(of: [1, 3].publisher.contains(3)) == [.subscription("Once"), .value(true), .finished])
    }

    @Test func throwingPredicatesFailWithTheThrownError() {
        let all: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryAllSatisfy { _ in throw TestError.oops }
        #expect(outcome(of: all).error == .oops)
        #expect(outcome(of: [1, 2].publisher.tryAllSatisfy { $0 > 0 }).values == [true])
        let contains: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryContains { _ in throw TestError.other }
        #expect(outcome(of: contains).error == .other)
        #expect(outcome(of: [1, 2].publisher.tryContains { $0 == 2 }).values == [true])
    }

    @Test func collectIsOneArray() {
        let publisher: Result<[Int], Never>.Publisher = (1...3).publisher.collect()
        #expect(events(of: publisher) == [.subscription("Once"), .value([1, 2, 3]), .finished])
    }

    @Test func ignoreOutputIsEmpty() {
        let publisher: Empty<Int, Never> = [1, 2].publisher.ignoreOutput()
        #expect(events(of: publisher) == [.subscription("Empty"), .finished])
    }

    @Test func setFailureTypeKeepsTheSequence() {
        let publisher: Publishers.Sequence<[Int], TestError> = [1, 2].publisher.setFailureType(to: TestError.self)
        #expect(events(of: publisher) == [.subscription("[1, 2]"), .value(1), .value(2), .finished])
    }

    @Test func prependAndAppendJoinTheCollections() {
        let prepended: Publishers.Sequence<[Int], Never> = [3, 4].publisher.prepend(1, 2)
        #expect(prepended.sequence == [1, 2, 3, 4])
        #expect([3].publisher.prepend(AnySequence([1, 2])).sequence == [1, 2, 3])
        #expect([3].publisher.prepend([1, 2].publisher).sequence == [1, 2, 3])
        let appended: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3, 4)
        #expect(appended.sequence == [1, 2, 3, 4])
        #expect([1].publisher.append(AnySequence([2, 3])).sequence == [1, 2, 3])
        #expect([1].publisher.append([2, 3].publisher).sequence == [1, 2, 3])
        #expect(
            events(of: [2].publisher.prepend(1).append(3)) == [
                .subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .finished,
            ])
    }

    @Test func demandOneAtATimeOverAMappedSequence() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        (0..<3).publisher.map { $0 * 10 }.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[0, 10, 20]"), .value(0), .value(10), .value(20), .finished])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aTypedFailureStaysInTheResult() {
        let reduced: Result<Int, TestError>.Publisher =
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).reduce(0, +)
        #expect(events(of: reduced) == [.subscription("Once"), .value(3), .finished])
        let mapped: Publishers.Sequence<[Int], TestError> =
            Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).map { $0 + 1 }
        #expect(mapped.sequence == [2, 3])
    }
}
