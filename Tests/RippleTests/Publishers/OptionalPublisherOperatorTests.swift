import Testing

@testable import Ripple

/// Combine's specialisations of operators on `Optional.Publisher`: computed at once, each another
/// `Optional.Publisher` (or `Just`, or `Empty`); with no value, no closure runs and the result is empty.
@Suite("Optional.Publisher operators")
struct OptionalPublisherOperatorTests {
    private let some = Optional(5).publisher
    private let none = Optional<Int>.none.publisher

    @Test func negativeCountsAndUnboundedRangesTrapAsInCombine() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Optional(5).publisher.dropFirst(-1)
        }
        expectTrap(result, saying: "count must not be negative")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Optional(5).publisher.output(at: -1)
        }
        expectTrap(result, saying: "index must not be negative")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Optional(5).publisher.output(in: -1..<2)
        }
        expectTrap(result, saying: "lowerBound must not be negative")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Optional(5).publisher.output(in: 0...)
        }
        expectTrap(result, saying: "upperBound must be less than Int.max - 1")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Optional(5).publisher.prefix(-1)
        }
        expectTrap(result, saying: "maxLength must not be negative")
    }

    @Test func operatorsThatKeepTheValueReturnTheSamePublisher() {
        for publisher in [some, none] {
            for kept in [
                publisher.min(), publisher.max(), publisher.first(), publisher.last(), publisher.removeDuplicates(),
                publisher.min(by: >), publisher.max(by: >), publisher.removeDuplicates(by: !=),
                publisher.replaceError(with: 0), publisher.retry(2),
            ] {
                #expect(kept == publisher)
            }
        }
    }

    @Test func transformsRunAtOnceOnTheValue() {
        var calls = 0
        let mapped = some.map { value -> String in
            calls += 1
            return "\(value)"
        }
        #expect(calls == 1)
        #expect(events(of: mapped) == [.subscription("Optional"), .value("5"), .finished])
        #expect(some.allSatisfy { $0 > 3 }.output == true)
        #expect(some.contains { $0 > 7 }.output == false)
        #expect(some.contains(5).output == true)
        #expect(some.collect().output == [5])
        #expect(some.count().output == 1)
        #expect(some.compactMap { $0 > 3 ? "big" : nil }.output == "big")
        #expect(some.compactMap { $0 > 7 ? "big" : nil }.output == nil)
        #expect(some.reduce(1, +).output == 6)
        #expect(some.scan(2, *).output == 10)
    }

    @Test func withoutAValueNoClosureRunsAndTheResultIsEmpty() {
        var calls = 0
        func counted<T>(_ result: T) -> (Int) -> T {
            { _ in
                calls += 1
                return result
            }
        }
        #expect(none.map(counted("x")).output == nil)
        #expect(none.allSatisfy(counted(true)).output == nil)
        #expect(none.contains(where: counted(true)).output == nil)
        #expect(none.compactMap(counted(Int?(1))).output == nil)
        #expect(none.filter(counted(true)).output == nil)
        #expect(none.drop(while: counted(false)).output == nil)
        #expect(none.prefix(while: counted(true)).output == nil)
        #expect(none.first(where: counted(true)).output == nil)
        #expect(none.last(where: counted(true)).output == nil)
        #expect(none.reduce(0) { $0 + $1 }.output == nil, "as in Combine: not the initial result")
        #expect(none.scan(0) { $0 + $1 }.output == nil)
        #expect(calls == 0)
        #expect(none.contains(5).output == nil)
        #expect(none.count().output == nil, "as in Combine: no count at all, not 0")
        #expect(events(of: none.count()) == [.subscription("Empty"), .finished])
    }

    @Test func collectWithoutAValueIsAnEmptyArray() {
        #expect(none.collect().output == [])
        #expect(events(of: none.collect()) == [.subscription("Optional"), .value([]), .finished])
    }

    @Test func filteringOperators() {
        #expect(some.filter { $0 > 3 }.output == 5)
        #expect(some.filter { $0 > 7 }.output == nil)
        #expect(some.first { $0 == 5 }.output == 5)
        #expect(some.last { $0 != 5 }.output == nil)
        #expect(some.drop { $0 > 3 }.output == nil)
        #expect(some.drop { $0 > 7 }.output == 5)
        #expect(some.prefix { $0 > 3 }.output == 5)
        #expect(some.prefix { $0 > 7 }.output == nil)
    }

    @Test func positionalOperatorsKeepTheValueOnlyAtPositionZero() {
        #expect(some.dropFirst().output == nil)
        #expect(some.dropFirst(0).output == 5)
        #expect(some.output(at: 0).output == 5)
        #expect(some.output(at: 1).output == nil)
        #expect(some.prefix(0).output == nil)
        #expect(some.prefix(2).output == 5)
        #expect(some.output(in: 0..<1).output == 5)
        #expect(some.output(in: 0...3).output == 5)
        #expect(some.output(in: 1..<3).output == nil)
        // Unlike `Just`'s, an empty range keeps nothing.
        #expect(some.output(in: 0..<0).output == nil)
        #expect(none.output(at: 0).output == nil)
        #expect(none.dropFirst(0).output == nil)
    }

    @Test func replaceEmptyGivesAJust() {
        let replaced: Just<Int> = none.replaceEmpty(with: 9)
        #expect(replaced.output == 9)
        #expect(some.replaceEmpty(with: 9).output == 5)
    }

    @Test func ignoreOutputFinishesAtOnce() {
        #expect(events(of: some.ignoreOutput()) == [.subscription("Empty"), .finished])
    }
}
