import Testing

@testable import Ripple

/// Combine's specialisations of operators on `Just`: computed at once, each a `Just`, an
/// `Optional.Publisher`, a `Result.Publisher`, `Empty` or a `Publishers.Sequence` (their types are checked
/// in `SpecialisedOperatorTypes.swift`).
@Suite("Just operators")
struct JustOperatorTests {

    @Test func negativeCountsTrapAsInCombine() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Just(5).dropFirst(-1)
        }
        expectTrap(result, saying: "count must not be negative")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Just(5).output(at: -1)
        }
        expectTrap(result, saying: "index must not be negative")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Just(5).prefix(-1)
        }
        expectTrap(result, saying: "maxLength must not be negative")
    }

    @Test func operatorsThatKeepTheValueReturnTheSameJust() {
        let just = Just(5)
        for kept in [
            just.min(), just.max(), just.first(), just.last(), just.removeDuplicates(), just.min(by: >),
            just.max(by: >), just.removeDuplicates(by: !=), just.replaceError(with: 0), just.replaceEmpty(with: 0),
            just.retry(3),
        ] {
            #expect(kept == just)
        }
        #expect(events(of: just.min()) == [.subscription("Just"), .value(5), .finished])
    }

    @Test func predicatesAndTransformsRunAtOnce() {
        var calls = 0
        let mapped = Just(5).map { value -> String in
            calls += 1
            return "\(value)"
        }
        #expect(calls == 1)
        #expect(mapped.output == "5")
        #expect(events(of: mapped) == [.subscription("Just"), .value("5"), .finished])
        #expect(calls == 1, "subscribing does not transform again")

        #expect(Just(5).allSatisfy { $0 > 3 }.output)
        #expect(!Just(5).contains { $0 > 7 }.output)
        #expect(Just(5).contains(5).output)
        #expect(!Just(5).contains(6).output)
        #expect(Just(5).collect().output == [5])
        #expect(Just(5).count().output == 1)
    }

    @Test func comparisonsWithoutAnOtherValueNeverCallTheClosure() {
        var calls = 0
        let ordering: (Int, Int) -> Bool = { _, _ in
            calls += 1
            return true
        }
        _ = Just(1).min(by: ordering)
        _ = Just(1).max(by: ordering)
        _ = Just(1).removeDuplicates(by: ordering)
        #expect(calls == 0)
    }

    @Test func filteringOperatorsGiveAnOptionalPublisher() {
        let just = Just(5)
        #expect(just.filter { $0 > 3 }.output == 5)
        #expect(just.filter { $0 > 7 }.output == nil)
        #expect(just.first { $0 == 5 }.output == 5)
        #expect(just.last { $0 != 5 }.output == nil)
        #expect(just.drop { $0 > 3 }.output == nil)
        #expect(just.drop { $0 > 7 }.output == 5)
        #expect(just.prefix { $0 > 3 }.output == 5)
        #expect(just.prefix { $0 > 7 }.output == nil)
        #expect(just.compactMap { $0 > 3 ? "big" : nil }.output == "big")
        #expect(just.compactMap { $0 > 7 ? "big" : nil }.output == nil)
        #expect(events(of: just.filter { $0 > 7 }) == [.subscription("Empty"), .finished])
        #expect(events(of: just.filter { $0 > 3 }) == [.subscription("Optional"), .value(5), .finished])
    }

    @Test func positionalOperatorsKeepTheValueOnlyAtPositionZero() {
        let just = Just("a")
        #expect(just.dropFirst().output == nil)
        #expect(just.dropFirst(0).output == "a")
        #expect(just.dropFirst(2).output == nil)
        #expect(just.output(at: 0).output == "a")
        #expect(just.output(at: 1).output == nil)
        #expect(just.prefix(0).output == nil)
        #expect(just.prefix(1).output == "a")
        #expect(just.prefix(9).output == "a")
        #expect(just.output(in: 0..<2).output == "a")
        #expect(just.output(in: 0...).output == "a")
        #expect(just.output(in: 1..<2).output == nil)
        #expect(just.output(in: ...3).output == "a")
        // As in Combine, a range that starts at 0 keeps the value even when it is empty.
        #expect(just.output(in: 0..<0).output == "a")
    }

    @Test func throwingOperatorsGiveAResultPublisher() {
        #expect(Just(2).tryMap { $0 * 10 }.result.value == 20)
        #expect(Just(2).tryMap { _ -> Int in throw TestError.oops }.result.error == .oops)
        #expect(Just(2).tryAllSatisfy { $0 > 1 }.result.value == true)
        #expect(Just(2).tryAllSatisfy { _ in throw TestError.other }.result.error == .other)
        #expect(Just(2).tryContains { $0 > 5 }.result.value == false)
        #expect(Just(2).tryContains { _ in throw TestError.oops }.result.error == .oops)
        #expect(Just(2).tryReduce(1) { $0 + $1 }.result.value == 3)
        #expect(Just(2).tryReduce(1) { _, _ in throw TestError.oops }.result.error == .oops)
        #expect(Just(2).tryScan(1) { $0 * $1 }.result.value == 2)
        #expect(Just(2).tryScan(1) { _, _ in throw TestError.other }.result.error == .other)
        #expect(outcome(of: Just(2).tryMap { _ -> Int in throw TestError.oops }).error == .oops)
    }

    @Test func tryRemoveDuplicatesCallsThePredicateOnceWithTheValueTwice() {
        var arguments: [[Int]] = []
        let kept = Just(4).tryRemoveDuplicates { lhs, rhs in
            arguments.append([lhs, rhs])
            return true
        }
        #expect(arguments == [[4, 4]])
        #expect(kept.result.value == 4)
        #expect(Just(4).tryRemoveDuplicates { _, _ in throw TestError.oops }.result.error == .oops)
    }

    @Test func reduceAndScanCombineTheValueWithTheInitialResult() {
        let reduced: Result<String, Never>.Publisher = Just(3).reduce("x") { $0 + String($1) }
        #expect(reduced.result == .success("x3"))
        #expect(Just(3).scan(10, +).result == .success(13))
        #expect(events(of: Just(3).scan(10, +)) == [.subscription("Once"), .value(13), .finished])
    }

    @Test func failureTypeChangesKeepTheValue() {
        let typed: Result<Int, TestError>.Publisher = Just(1).setFailureType(to: TestError.self)
        #expect(typed.result == .success(1))
        let mapped: Result<Int, TestError>.Publisher = Just(1).mapError(neverFails)
        #expect(mapped.result == .success(1))
    }

    @Test func ignoreOutputFinishesAtOnce() {
        #expect(events(of: Just(1).ignoreOutput()) == [.subscription("Empty"), .finished])
    }

    @Test func prependAndAppendBuildASequence() {
        #expect(Just(3).prepend(1, 2).sequence == [1, 2, 3])
        #expect(Just(3).prepend(1...2).sequence == [1, 2, 3])
        #expect(Just(3).append(4, 5).sequence == [3, 4, 5])
        #expect(Just(3).append([4, 5]).sequence == [3, 4, 5])
        #expect(Just(3).append().sequence == [3])
        #expect(
            events(of: Just(3).append(4)) == [.subscription("[3, 4]"), .value(3), .value(4), .finished]
        )
    }
}

/// The error a `Never` would convert to (there is none to convert).
private func neverFails(_ never: Never) -> TestError {}

extension Result {
    /// The success value, if any.
    var value: Success? {
        if case .success(let value) = self { value } else { nil }
    }

    /// The failure as a `TestError`, if it is one.
    var error: TestError? {
        if case .failure(let error) = self { error as? TestError } else { nil }
    }
}
