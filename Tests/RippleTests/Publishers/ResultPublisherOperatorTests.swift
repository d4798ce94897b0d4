import Testing

@testable import Ripple

/// Combine's specialisations of operators on `Result.Publisher`: computed at once, each another
/// `Result.Publisher` (or `Empty`); a failure passes through without calling any closure.
@Suite("Result.Publisher operators")
struct ResultPublisherOperatorTests {
    private typealias Sut = Result<Int, TestError>.Publisher
    private let success = Sut(5)
    private let failure = Sut(.oops)

    @Test func operatorsThatKeepTheResultReturnTheSamePublisher() {
        for publisher in [success, failure] {
            for kept in [
                publisher.min(), publisher.max(), publisher.first(), publisher.last(), publisher.removeDuplicates(),
                publisher.min(by: >), publisher.max(by: >), publisher.removeDuplicates(by: !=),
                publisher.replaceEmpty(with: 0), publisher.retry(2),
            ] {
                #expect(kept == publisher)
            }
        }
    }

    @Test func transformsRunAtOnceOnTheValue() {
        var calls = 0
        let mapped = success.map { value -> String in
            calls += 1
            return "\(value)"
        }
        #expect(calls == 1)
        #expect(events(of: mapped) == [.subscription("Once"), .value("5"), .finished])
        #expect(success.allSatisfy { $0 > 3 }.result == .success(true))
        #expect(success.contains { $0 > 7 }.result == .success(false))
        #expect(success.contains(5).result == .success(true))
        #expect(success.collect().result == .success([5]))
        #expect(success.count().result == .success(1))
        #expect(success.reduce(1, +).result == .success(6))
        #expect(success.scan(2, *).result == .success(10))
    }

    @Test func aFailurePassesThroughWithoutCallingClosures() {
        var calls = 0
        func counted<T>(_ result: T) -> (Int) -> T {
            { _ in
                calls += 1
                return result
            }
        }
        #expect(failure.map(counted("x")).result == .failure(.oops))
        #expect(failure.allSatisfy(counted(true)).result == .failure(.oops))
        #expect(failure.contains(where: counted(true)).result == .failure(.oops))
        #expect(failure.reduce(0) { $0 + $1 }.result == .failure(.oops))
        #expect(failure.scan(0) { $0 + $1 }.result == .failure(.oops))
        #expect(failure.tryMap(counted(1)).result.error == .oops)
        #expect(failure.tryAllSatisfy(counted(true)).result.error == .oops)
        #expect(failure.tryMin { _, _ in true }.result.error == .oops)
        #expect(calls == 0)
        #expect(failure.count().result == .failure(.oops))
        #expect(failure.collect().result == .failure(.oops))
        #expect(events(of: failure.count()) == [.subscription("Empty"), .failure(.oops)])
    }

    @Test func throwingOperatorsFailWithTheThrownError() {
        #expect(success.tryMap { $0 * 2 }.result.value == 10)
        #expect(success.tryMap { _ -> Int in throw TestError.other }.result.error == .other)
        #expect(success.tryAllSatisfy { _ in throw TestError.other }.result.error == .other)
        #expect(success.tryContains { $0 == 5 }.result.value == true)
        #expect(success.tryContains { _ in throw TestError.other }.result.error == .other)
        #expect(success.tryReduce(1, +).result.value == 6)
        #expect(success.tryReduce(1) { _, _ in throw TestError.other }.result.error == .other)
        #expect(success.tryScan(1, +).result.value == 6)
        #expect(success.tryScan(1) { _, _ in throw TestError.other }.result.error == .other)
    }

    @Test func throwingComparisonsCallTheClosureOnceWithTheValueTwice() {
        var arguments: [[Int]] = []
        let record: (Int, Int) throws -> Bool = { lhs, rhs in
            arguments.append([lhs, rhs])
            return false
        }
        #expect(success.tryMin(by: record).result.value == 5)
        #expect(success.tryMax(by: record).result.value == 5)
        #expect(success.tryRemoveDuplicates(by: record).result.value == 5)
        #expect(arguments == [[5, 5], [5, 5], [5, 5]])
        #expect(success.tryMin { _, _ in throw TestError.other }.result.error == .other)
        #expect(success.tryMax { _, _ in throw TestError.other }.result.error == .other)
        #expect(success.tryRemoveDuplicates { _, _ in throw TestError.other }.result.error == .other)
    }

    @Test func errorOperators() {
        let mapped: Result<Int, DescribedError>.Publisher = failure.mapError { DescribedError(text: "\($0)") }
        #expect(mapped.result == .failure(DescribedError(text: "oops")))
        #expect(success.mapError { DescribedError(text: "\($0)") }.result == .success(5))
        let replaced: Result<Int, Never>.Publisher = failure.replaceError(with: 7)
        #expect(replaced.result == .success(7))
        #expect(success.replaceError(with: 7).result == .success(5))
        let typed: Result<Int, TestError>.Publisher = Result<Int, Never>.Publisher(3).setFailureType(to: TestError.self)
        #expect(typed.result == .success(3))
    }

    @Test func ignoreOutputFinishesAtOnce() {
        #expect(events(of: success.ignoreOutput()) == [.subscription("Empty"), .finished])
        // As in Combine, `Empty` finishes even for a failed result.
        #expect(events(of: failure.ignoreOutput()) == [.subscription("Empty"), .finished])
    }
}

/// An error that carries the description of another.
private struct DescribedError: Error, Equatable {
    let text: String
}
