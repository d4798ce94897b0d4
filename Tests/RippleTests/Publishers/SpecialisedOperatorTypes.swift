@testable import Ripple

// Compile-time checks: Combine's specialised operators on `Just`, `Optional.Publisher` and
// `Result.Publisher` return Combine's types. Every declaration below names the type Combine gives; if an
// operator resolved to the general `Publisher` operator instead (a `Publishers.Map`, …), this file would
// not compile. Nothing here runs.

private struct Failure: Error {}

/// The error a `Never` would convert to (there is none to convert).
private func absurd(_ never: Never) -> Failure {}

private func justOperatorTypes() {
    let just = Just(3)
    let _: Just<Int> = just.min()
    let _: Just<Int> = just.max()
    let _: Just<Bool> = just.contains(3)
    let _: Just<Int> = just.removeDuplicates()
    let _: Just<Bool> = just.allSatisfy { $0 > 0 }
    let _: Result<Bool, any Error>.Publisher = just.tryAllSatisfy { $0 > 0 }
    let _: Just<Bool> = just.contains { $0 > 0 }
    let _: Result<Bool, any Error>.Publisher = just.tryContains { $0 > 0 }
    let _: Just<[Int]> = just.collect()
    let _: Just<Int> = just.min { $0 < $1 }
    let _: Just<Int> = just.max { $0 < $1 }
    let _: Just<Int> = just.count()
    let _: Optional<Int>.Publisher = just.dropFirst()
    let _: Optional<Int>.Publisher = just.dropFirst(0)
    let _: Optional<Int>.Publisher = just.drop { $0 > 0 }
    let _: Just<Int> = just.first()
    let _: Optional<Int>.Publisher = just.first { $0 > 0 }
    let _: Just<Int> = just.last()
    let _: Optional<Int>.Publisher = just.last { $0 > 0 }
    let _: Optional<Int>.Publisher = just.filter { $0 > 0 }
    let _: Empty<Int, Never> = just.ignoreOutput()
    let _: Just<String> = just.map { String($0) }
    let _: Result<String, any Error>.Publisher = just.tryMap { String($0) }
    let _: Optional<Int>.Publisher = just.compactMap { Int?($0) }
    let _: Optional<Int>.Publisher = just.output(at: 0)
    let _: Optional<Int>.Publisher = just.output(in: 0..<1)
    let _: Optional<Int>.Publisher = just.output(in: 0...)
    let _: Optional<Int>.Publisher = just.prefix(1)
    let _: Optional<Int>.Publisher = just.prefix { $0 > 0 }
    let _: Result<Int, Failure>.Publisher = just.setFailureType(to: Failure.self)
    let _: Result<Int, Failure>.Publisher = just.mapError(absurd)
    let _: Just<Int> = just.removeDuplicates { $0 == $1 }
    let _: Result<Int, any Error>.Publisher = just.tryRemoveDuplicates { $0 == $1 }
    let _: Just<Int> = just.replaceError(with: 0)
    let _: Just<Int> = just.replaceEmpty(with: 0)
    let _: Just<Int> = just.retry(1)
    let _: Result<Int, Never>.Publisher = just.reduce(0, +)
    let _: Result<Int, any Error>.Publisher = just.tryReduce(0, +)
    let _: Result<Int, Never>.Publisher = just.scan(0, +)
    let _: Result<Int, any Error>.Publisher = just.tryScan(0, +)
    let _: Publishers.Sequence<[Int], Never> = just.prepend(1, 2)
    let _: Publishers.Sequence<[Int], Never> = just.prepend([1, 2])
    let _: Publishers.Sequence<[Int], Never> = just.append(4, 5)
    let _: Publishers.Sequence<[Int], Never> = just.append(4...5)
}

private func optionalPublisherOperatorTypes() {
    let optional = Optional(3).publisher
    let _: Optional<Bool>.Publisher = optional.contains(3)
    let _: Optional<Int>.Publisher = optional.removeDuplicates()
    let _: Optional<Int>.Publisher = optional.min()
    let _: Optional<Int>.Publisher = optional.max()
    let _: Optional<Bool>.Publisher = optional.allSatisfy { $0 > 0 }
    let _: Optional<[Int]>.Publisher = optional.collect()
    let _: Optional<String>.Publisher = optional.compactMap { String?(String($0)) }
    let _: Optional<Int>.Publisher = optional.min { $0 < $1 }
    let _: Optional<Int>.Publisher = optional.max { $0 < $1 }
    let _: Optional<Bool>.Publisher = optional.contains { $0 > 0 }
    let _: Optional<Int>.Publisher = optional.count()
    let _: Optional<Int>.Publisher = optional.dropFirst()
    let _: Optional<Int>.Publisher = optional.drop { $0 > 0 }
    let _: Optional<Int>.Publisher = optional.first()
    let _: Optional<Int>.Publisher = optional.first { $0 > 0 }
    let _: Optional<Int>.Publisher = optional.last()
    let _: Optional<Int>.Publisher = optional.last { $0 > 0 }
    let _: Optional<Int>.Publisher = optional.filter { $0 > 0 }
    let _: Empty<Int, Never> = optional.ignoreOutput()
    let _: Optional<String>.Publisher = optional.map { String($0) }
    let _: Optional<Int>.Publisher = optional.output(at: 0)
    let _: Optional<Int>.Publisher = optional.output(in: 0..<1)
    let _: Optional<Int>.Publisher = optional.prefix(1)
    let _: Optional<Int>.Publisher = optional.prefix { $0 > 0 }
    let _: Optional<Int>.Publisher = optional.reduce(0, +)
    let _: Optional<Int>.Publisher = optional.scan(0, +)
    let _: Optional<Int>.Publisher = optional.removeDuplicates { $0 == $1 }
    let _: Optional<Int>.Publisher = optional.replaceError(with: 0)
    let _: Just<Int> = optional.replaceEmpty(with: 0)
    let _: Optional<Int>.Publisher = optional.retry(1)
}

private func resultPublisherOperatorTypes() {
    let result = Result<Int, Failure>.Publisher(3)
    let _: Result<Bool, Failure>.Publisher = result.contains(3)
    let _: Result<Int, Failure>.Publisher = result.removeDuplicates()
    let _: Result<Int, Failure>.Publisher = result.min()
    let _: Result<Int, Failure>.Publisher = result.max()
    let _: Result<Bool, Failure>.Publisher = result.allSatisfy { $0 > 0 }
    let _: Result<Bool, any Error>.Publisher = result.tryAllSatisfy { $0 > 0 }
    let _: Result<Bool, Failure>.Publisher = result.contains { $0 > 0 }
    let _: Result<Bool, any Error>.Publisher = result.tryContains { $0 > 0 }
    let _: Result<[Int], Failure>.Publisher = result.collect()
    let _: Result<Int, Failure>.Publisher = result.min { $0 < $1 }
    let _: Result<Int, any Error>.Publisher = result.tryMin { $0 < $1 }
    let _: Result<Int, Failure>.Publisher = result.max { $0 < $1 }
    let _: Result<Int, any Error>.Publisher = result.tryMax { $0 < $1 }
    let _: Result<Int, Failure>.Publisher = result.count()
    let _: Result<Int, Failure>.Publisher = result.first()
    let _: Result<Int, Failure>.Publisher = result.last()
    let _: Empty<Int, Failure> = result.ignoreOutput()
    let _: Result<String, Failure>.Publisher = result.map { String($0) }
    let _: Result<String, any Error>.Publisher = result.tryMap { String($0) }
    let _: Result<Int, TestError>.Publisher = result.mapError { _ in TestError.oops }
    let _: Result<Int, Failure>.Publisher = result.removeDuplicates { $0 == $1 }
    let _: Result<Int, any Error>.Publisher = result.tryRemoveDuplicates { $0 == $1 }
    let _: Result<Int, Never>.Publisher = result.replaceError(with: 0)
    let _: Result<Int, Failure>.Publisher = result.replaceEmpty(with: 0)
    let _: Result<Int, Failure>.Publisher = result.retry(1)
    let _: Result<Int, Failure>.Publisher = result.reduce(0, +)
    let _: Result<Int, any Error>.Publisher = result.tryReduce(0, +)
    let _: Result<Int, Failure>.Publisher = result.scan(0, +)
    let _: Result<Int, any Error>.Publisher = result.tryScan(0, +)
    let _: Result<Int, Failure> = result.result
    let never = Result<Int, Never>.Publisher(3)
    let _: Result<Int, Failure>.Publisher = never.setFailureType(to: Failure.self)
}
